// The web inspector's static files over real HTTP (the pages in a browser: tests/ui/): served
// from the binary without a key even when the API needs one, each with its content type and the
// strict Content-Security-Policy, and every file index.html refers to is there.
#include "server/ui.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <httplib.h>

#include <regex>
#include <set>
#include <string>

#include "server/ui_assets.h"
#include "server_fixture.h"

namespace engram::testing {
namespace {

using ::testing::HasSubstr;
using ::testing::StartsWith;

class ServerUiTest : public ::testing::Test {
 protected:
  ServerUiTest()
      : server_(TestServerOptions{
            .with_keys = true,
            .before_bind =
                [](server::HttpServer& http) { http.MountPublic("/ui", server::ServeUi); }}),
        client_("127.0.0.1", server_.port()) {}

  TestServer server_;
  httplib::Client client_;
};

TEST_F(ServerUiTest, PagesNeedNoKeyAndCarryTheContentSecurityPolicy) {
  httplib::Result index = client_.Get("/ui/");
  ASSERT_TRUE(index);
  EXPECT_EQ(index->status, 200);
  EXPECT_EQ(index->get_header_value("Content-Type"), "text/html; charset=utf-8");
  EXPECT_EQ(index->get_header_value("Content-Security-Policy"), server::kUiContentSecurityPolicy);
  EXPECT_EQ(index->get_header_value("X-Content-Type-Options"), "nosniff");
  EXPECT_THAT(index->body, HasSubstr("<title>engram inspector</title>"));
  // The API behind the pages still wants a key.
  httplib::Result scopes = client_.Get("/v1/scopes");
  ASSERT_TRUE(scopes);
  EXPECT_EQ(scopes->status, 401);
}

TEST_F(ServerUiTest, ScriptsAndStylesComeWithTheirTypesAndUnknownFilesAre404) {
  httplib::Result script = client_.Get("/ui/app.js");
  ASSERT_TRUE(script);
  EXPECT_EQ(script->status, 200);
  EXPECT_EQ(script->get_header_value("Content-Type"), "text/javascript; charset=utf-8");
  httplib::Result style = client_.Get("/ui/style.css");
  ASSERT_TRUE(style);
  EXPECT_EQ(style->get_header_value("Content-Type"), "text/css; charset=utf-8");
  httplib::Result missing = client_.Get("/ui/../v1/scopes");
  ASSERT_TRUE(missing);
  EXPECT_NE(missing->status, 200);
  httplib::Result unknown = client_.Get("/ui/secrets.json");
  ASSERT_TRUE(unknown);
  EXPECT_EQ(unknown->status, 404);
  EXPECT_EQ(unknown->get_header_value("Content-Security-Policy"), server::kUiContentSecurityPolicy);
}

TEST_F(ServerUiTest, BarePathRedirectsAndWritesAreRefused) {
  httplib::Result bare = client_.Get("/ui");
  ASSERT_TRUE(bare);
  EXPECT_EQ(bare->status, 301);
  EXPECT_EQ(bare->get_header_value("Location"), "/ui/");
  httplib::Result post = client_.Post("/ui/", "x", "text/plain");
  ASSERT_TRUE(post);
  EXPECT_EQ(post->status, 405);
  EXPECT_EQ(post->get_header_value("Allow"), "GET, HEAD");
}

TEST(ServerUiAssetsTest, IndexRefersOnlyToEmbeddedFilesAndHasNoInlineScript) {
  std::set<std::string> embedded;
  std::string index;
  for (const server::UiAsset& asset : server::UiAssets()) {
    embedded.insert(std::string(asset.path));
    if (asset.path == "index.html") index = std::string(asset.body);
  }
  ASSERT_FALSE(index.empty());
  const std::regex reference(R"re((?:src|href)="([^"#][^"]*)")re");
  std::set<std::string> referenced;
  for (auto it = std::sregex_iterator(index.begin(), index.end(), reference);
       it != std::sregex_iterator(); ++it) {
    const std::string target = (*it)[1];
    if (target.rfind("data:", 0) == 0) continue;
    referenced.insert(target);
  }
  EXPECT_EQ(referenced, (std::set<std::string>{"app.js", "style.css"}));
  for (const std::string& target : referenced) EXPECT_TRUE(embedded.count(target)) << target;
  // Every <script> loads a file: the policy forbids inline script, so inline code would not run.
  const std::regex script_tag(R"(<script[^>]*>)");
  for (auto it = std::sregex_iterator(index.begin(), index.end(), script_tag);
       it != std::sregex_iterator(); ++it) {
    EXPECT_THAT(it->str(), HasSubstr("src=")) << it->str();
  }
  EXPECT_THAT(std::string(server::kUiContentSecurityPolicy), StartsWith("default-src 'none'"));
}

}  // namespace
}  // namespace engram::testing
