// `engram serve` as curl users reach it: the README's REST and mem0 examples run verbatim with the
// real `curl` binary, JSON sent under curl's default form Content-Type, POSTs with no body (logged
// with --log-requests like any other), a body that is not JSON answered with a message naming the
// Content-Type header, and browser form bodies still refused.
//
// Every request goes through the `curl` on PATH (scripts/setup installs it); its status code is
// appended to the output by a .curlrc in the test's directory (CURL_HOME), so the README's command
// lines run exactly as written, with only the host:port changed to the test server's.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <memory>
#include <nlohmann/json.hpp>
#include <regex>
#include <string>
#include <vector>

#include "engram/testing/temp_dir.h"
#include "serve_process.h"

namespace engram::testing {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;
using Json = nlohmann::json;

constexpr char kReadmeHostPort[] = "127.0.0.1:8420";
// A line of the README's server examples this test looks for (and runs).
constexpr char kReadmeAnchor[] = "curl -s -X POST http://127.0.0.1:8420/v1/scopes/user:alice/memories";

struct CurlResult {
  int exit_code = -1;  // curl's
  int status = 0;      // the HTTP status, 0 when curl got no response
  std::string body;
};

std::string SourceDir() {
  const char* dir = std::getenv("ENGRAM_SOURCE_DIR");
  return dir != nullptr && *dir != '\0' ? dir : ".";
}

bool CurlOnPath() { return std::system("command -v curl >/dev/null 2>&1") == 0; }

// `text` parsed as a JSON object, or an empty object when it is not one.
Json ObjectOf(const std::string& text) {
  Json parsed = Json::parse(text, nullptr, /*allow_exceptions=*/false);
  return parsed.is_object() ? parsed : Json::object();
}

class CurlTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(CurlOnPath()) << "curl is not installed (scripts/setup installs it)";
    dir_.File("config.toml", "[embedder]\nkind = \"hashing\"\n");
    // Appends "\n<status>" to every response; 0 when there was none. Bounded so a hung request
    // fails the test instead of stopping it.
    dir_.File(".curlrc", "write-out = \"\\n%{http_code}\"\nmax-time = 60\n");
    ::setenv("CURL_HOME", dir_.path().c_str(), 1);
  }

  void Serve(const std::vector<std::string>& extra = {}) {
    serve_ = std::make_unique<ServeProcess>(dir_.File("mem.db"), dir_.File("config.toml"),
                                            dir_.File("serve.log"), extra);
    ASSERT_NE(serve_->port(), 0) << serve_->log();
    host_port_ = "127.0.0.1:" + std::to_string(serve_->port());
  }

  // Runs `command` (a shell command line starting with curl) as written.
  static CurlResult Run(const std::string& command) {
    CurlResult result;
    FILE* pipe = ::popen(command.c_str(), "r");
    if (pipe == nullptr) return result;
    std::string out;
    char buffer[4096];
    std::size_t read = 0;
    while ((read = std::fread(buffer, 1, sizeof(buffer), pipe)) > 0) out.append(buffer, read);
    const int status = ::pclose(pipe);
    if (WIFEXITED(status)) result.exit_code = WEXITSTATUS(status);
    const std::size_t last_line = out.rfind('\n');
    if (last_line != std::string::npos) {
      result.status = std::atoi(out.c_str() + last_line + 1);
      result.body = out.substr(0, last_line);
    }
    return result;
  }

  // `curl -s <args>` against the test server; `path` is appended to its base URL.
  CurlResult Curl(const std::string& args, const std::string& path) {
    return Run("curl -s " + args + " 'http://" + host_port_ + path + "'");
  }

  TempDir dir_{"engram_curl_test"};
  std::unique_ptr<ServeProcess> serve_;
  std::string host_port_;
};

// The shell commands of the ```sh (or ```bash) blocks of the README section ("## ...") that holds
// kReadmeAnchor: one per command, with its backslash-continued lines; comments and blank lines
// left out.
std::vector<std::string> ReadmeServerCommands() {
  std::ifstream in(SourceDir() + "/README.md");
  std::vector<std::string> section;  // the current section's shell lines
  std::vector<std::string> found;
  bool in_shell = false;
  bool in_other_block = false;
  auto close_section = [&] {
    for (const std::string& kept : section) {
      if (kept.find(kReadmeAnchor) != std::string::npos) found = section;
    }
    section.clear();
  };
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("```", 0) == 0) {
      if (in_shell || in_other_block) {
        in_shell = in_other_block = false;
      } else {
        (line == "```sh" || line == "```bash" ? in_shell : in_other_block) = true;
      }
    } else if (in_shell) {
      section.push_back(line);
    } else if (!in_other_block && line.rfind("## ", 0) == 0) {
      close_section();
    }
  }
  close_section();
  std::vector<std::string> commands;
  std::string command;
  for (const std::string& text : found) {
    if (command.empty() && (text.empty() || text[0] == '#')) continue;
    command += (command.empty() ? "" : "\n") + text;
    if (!text.empty() && text.back() == '\\') continue;
    commands.push_back(command);
    command.clear();
  }
  return commands;
}

// The texts a remembering command stores: its -d body's turns[].text or messages[].content.
std::vector<std::string> RememberedTexts(const std::string& command) {
  std::smatch match;
  if (!std::regex_search(command, match, std::regex("-d '([^']*)'"))) return {};
  const Json body = Json::parse(match[1].str(), nullptr, /*allow_exceptions=*/false);
  std::vector<std::string> texts;
  for (const char* list : {"turns", "messages"}) {
    if (!body.is_object() || !body.contains(list)) continue;
    for (const Json& entry : body[list]) {
      for (const char* field : {"text", "content"}) {
        if (entry.contains(field)) texts.push_back(entry[field].get<std::string>());
      }
    }
  }
  return texts;
}

// The README's server examples (every shell block of their section), verbatim but for the port:
// every curl command against the loopback address is 2xx, and each recall or search finds what
// the commands before it stored. Left out: `build/engram ...` lines (the test starts `engram
// serve` itself, on a free port) and curl commands with placeholders (the keys example's
// `http://HOST:8420` and `egk_...` key).
TEST_F(CurlTest, ReadmeServerExamplesRunVerbatim) {
  const std::vector<std::string> commands = ReadmeServerCommands();
  ASSERT_FALSE(commands.empty()) << "README.md has no section whose ```sh blocks hold: "
                                 << kReadmeAnchor;
  ASSERT_NO_FATAL_FAILURE(Serve());
  int ran = 0;
  int searched = 0;
  std::string remembered;
  for (std::string command : commands) {
    if (command.rfind("curl ", 0) != 0) continue;
    if (command.find(kReadmeHostPort) == std::string::npos) {
      EXPECT_THAT(command, HasSubstr("HOST")) << "a README curl example this test cannot run";
      continue;
    }
    for (std::size_t at = command.find(kReadmeHostPort); at != std::string::npos;
         at = command.find(kReadmeHostPort, at + host_port_.size())) {
      command.replace(at, sizeof(kReadmeHostPort) - 1, host_port_);
    }
    const CurlResult result = Run(command);
    ++ran;
    EXPECT_EQ(result.exit_code, 0) << command;
    EXPECT_GE(result.status, 200) << command << "\n" << result.body;
    EXPECT_LT(result.status, 300) << command << "\n" << result.body;
    EXPECT_FALSE(ObjectOf(result.body).empty()) << command << "\n" << result.body;
    for (const std::string& text : RememberedTexts(command)) remembered = text;
    const std::regex asks("/(recall|search) ");
    if (std::regex_search(command, asks)) {
      ++searched;
      ASSERT_FALSE(remembered.empty()) << "a README example asks before anything is stored";
      EXPECT_THAT(result.body, HasSubstr(remembered)) << command;
    }
  }
  // The block holds the native and the mem0 example, each remembering then asking.
  EXPECT_GE(ran, 4);
  EXPECT_GE(searched, 2);
}

// curl -d sends Content-Type: application/x-www-form-urlencoded; the body is JSON all the same.
TEST_F(CurlTest, JsonUnderCurlsFormContentTypeIsRead) {
  ASSERT_NO_FATAL_FAILURE(Serve());
  const CurlResult stored =
      Curl(R"(-X POST -d '{"turns": [{"text": "Rui feeds the cat at seven."}]}')",
           "/v1/scopes/user:rui/memories");
  ASSERT_EQ(stored.status, 201) << stored.body;
  const CurlResult typed = Curl(
      R"(-H 'Content-Type: text/plain' -d '{"query": "Who feeds the cat?"}')",
      "/v1/scopes/user:rui/recall");
  ASSERT_EQ(typed.status, 200) << typed.body;
  EXPECT_THAT(typed.body, HasSubstr("Rui feeds the cat at seven."));
  const CurlResult mem0 = Curl(
      R"(--data-binary '{"messages": [{"role": "user", "content": "I grow basil."}], "user_id": "rui"}')",
      "/memories");
  EXPECT_EQ(mem0.status, 200) << mem0.body;
}

// A POST with no body at all (no Content-Length, no Content-Type) is served and logged.
TEST_F(CurlTest, PostsWithoutABodyAreServedAndLogged) {
  ASSERT_NO_FATAL_FAILURE(Serve({"--log-requests", "--allow-admin"}));
  ASSERT_EQ(Curl(R"(-d '{"turns": [{"text": "Ines takes the early train."}]}')",
                 "/v1/scopes/user:ines/memories")
                .status,
            201);
  const CurlResult retired = Curl("-X POST", "/v1/scopes/user:ines/retire-all");
  EXPECT_EQ(retired.status, 200) << retired.body;
  EXPECT_GE(ObjectOf(retired.body).value("retired", 0), 1) << retired.body;
  const CurlResult rebuilt = Curl("-X POST", "/v1/admin/rebuild-index");
  EXPECT_EQ(rebuilt.status, 200) << rebuilt.body;
  const CurlResult reset = Curl("-X POST", "/reset");
  EXPECT_EQ(reset.status, 200) << reset.body;
  const CurlResult scopes = Curl("", "/v1/scopes");
  EXPECT_EQ(ObjectOf(scopes.body).value("count", -1), 0) << scopes.body;

  const std::string log = serve_->log();
  EXPECT_THAT(log, HasSubstr("POST /v1/scopes/user:ines/retire-all 200"));
  EXPECT_THAT(log, HasSubstr("POST /v1/admin/rebuild-index 200"));
  EXPECT_THAT(log, HasSubstr("POST /reset 200"));
  EXPECT_THAT(log, Not(HasSubstr("malformed")));
}

// Form fields or text where JSON belongs: a 400 (mem0's routes: 422) that says the body is read
// as JSON whatever its Content-Type header, never "unknown query parameter" or the like.
TEST_F(CurlTest, ABodyThatIsNotJsonIsRefusedNamingTheContentType) {
  ASSERT_NO_FATAL_FAILURE(Serve());
  const CurlResult form = Curl("-d 'query=Where does Maya live'", "/v1/scopes/user:alice/recall");
  EXPECT_EQ(form.status, 400) << form.body;
  const Json form_error = ObjectOf(form.body).value("error", Json::object());
  EXPECT_EQ(form_error.value("code", ""), "INVALID_ARGUMENT") << form.body;
  EXPECT_THAT(form_error.value("message", ""), HasSubstr("not valid JSON"));
  EXPECT_THAT(form_error.value("message", ""),
              HasSubstr("read as JSON whatever its Content-Type header says"));

  const CurlResult text = Curl("-H 'Content-Type: text/plain' -d 'remember that I like tea'",
                               "/v1/scopes/user:alice/memories");
  EXPECT_EQ(text.status, 400) << text.body;
  EXPECT_THAT(text.body, HasSubstr("Content-Type"));

  const CurlResult mem0 = Curl("-d 'query=allergies&user_id=bob'", "/search");
  EXPECT_EQ(mem0.status, 422) << mem0.body;
  EXPECT_THAT(mem0.body, HasSubstr("read as JSON whatever its Content-Type header says"));
}

// What a browser page sends without a CORS preflight (a form or text body, with Origin or
// Sec-Fetch-Site) stays refused, JSON inside or not; the same body from curl is served.
TEST_F(CurlTest, BrowserFormBodiesStayRefused) {
  ASSERT_NO_FATAL_FAILURE(Serve());
  const std::string turn = R"(-d '{"turns": [{"text": "Written by a web page."}]}')";
  const std::string memories = "/v1/scopes/user:page/memories";
  EXPECT_EQ(Curl("-H 'Origin: http://localhost:3000' " + turn, memories).status, 403);
  EXPECT_EQ(Curl("-H 'Origin: http://localhost:3000' -H 'Sec-Fetch-Site: same-site' "
                 "-H 'Content-Type: text/plain' " + turn,
                 memories)
                .status,
            403);
  EXPECT_EQ(Curl("-H 'Sec-Fetch-Site: cross-site' " + turn, memories).status, 403);
  EXPECT_EQ(Curl("-X POST -H 'Origin: http://evil.example'", "/reset").status, 403);
  const CurlResult listed = Curl("", memories);
  EXPECT_THAT(listed.body, Not(HasSubstr("Written by a web page.")));
  EXPECT_EQ(Curl(turn, memories).status, 201);
}

}  // namespace
}  // namespace engram::testing
