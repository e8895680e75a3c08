// Tests of the API keys file: create, authenticate, revoke, save and reload, malformed files.
#include "auth/keys.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "core/sha256.h"
#include "engram/testing/status_matchers.h"
#include "engram/testing/temp_dir.h"

namespace engram::auth {
namespace {

using ::engram::testing::IsOk;
using ::engram::testing::StatusIs;
using ::testing::HasSubstr;
using ::testing::Not;

const Timestamp kNow = Timestamp::FromSeconds(1704067200);

Scope S(const char* text) { return Scope::Parse(text).value(); }

TEST(KeyFileTest, CreatedKeyAuthenticatesWithItsScopeAndRights) {
  KeyFile file;
  StatusOr<CreatedKey> created = file.Create(S("app:crm"), {Right::kRead}, "reader", kNow);
  ASSERT_THAT(created.status(), IsOk());
  EXPECT_EQ(created->secret.rfind("egk_", 0), 0u);
  EXPECT_EQ(created->secret.size(), 4u + 64u);
  EXPECT_EQ(created->record.sha256, core::Sha256Hex(created->secret));
  StatusOr<Access> access = file.Authenticate(created->secret);
  ASSERT_THAT(access.status(), IsOk());
  EXPECT_TRUE(access->Allows(S("app:crm/user:alice"), Right::kRead));
  EXPECT_FALSE(access->Allows(S("app:crm/user:alice"), Right::kWrite));
  EXPECT_FALSE(access->Allows(S("app:crm2"), Right::kRead));
  EXPECT_FALSE(access->IsServerAdmin());
  EXPECT_EQ(access->key_id(), created->record.id);
}

TEST(KeyFileTest, TwoKeysDiffer) {
  KeyFile file;
  CreatedKey a = file.Create(S("user:a"), {Right::kRead}, "", kNow).value();
  CreatedKey b = file.Create(S("user:a"), {Right::kRead}, "", kNow).value();
  EXPECT_NE(a.secret, b.secret);
  EXPECT_NE(a.record.id, b.record.id);
}

TEST(KeyFileTest, UnknownMalformedAndRevokedKeysAreRefused) {
  KeyFile file;
  CreatedKey created = file.Create(S("user:a"), {Right::kWrite}, "w", kNow).value();
  EXPECT_THAT(file.Authenticate("egk_" + std::string(64, '0')).status(),
              StatusIs(StatusCode::kFailedPrecondition));
  EXPECT_THAT(file.Authenticate("").status(), StatusIs(StatusCode::kFailedPrecondition));
  EXPECT_THAT(file.Authenticate(created.record.sha256).status(),
              StatusIs(StatusCode::kFailedPrecondition));  // the hash is not the key
  ASSERT_THAT(file.Revoke(created.record.id), IsOk());
  EXPECT_THAT(file.Authenticate(created.secret).status(),
              StatusIs(StatusCode::kFailedPrecondition));
  EXPECT_THAT(file.Revoke(created.record.id), StatusIs(StatusCode::kFailedPrecondition));
  EXPECT_THAT(file.Revoke("k_000000000000"), StatusIs(StatusCode::kNotFound));
}

TEST(KeyFileTest, RootKeyWithAdminIsServerAdmin) {
  KeyFile file;
  CreatedKey created = file.Create(Scope(), {Right::kAdmin}, "root", kNow).value();
  Access access = file.Authenticate(created.secret).value();
  EXPECT_TRUE(access.IsServerAdmin());
  EXPECT_TRUE(access.Allows(S("user:anyone"), Right::kErase));
}

TEST(KeyFileTest, SaveWritesMode0600WithoutSecretsAndLoadsBack) {
  const engram::testing::TempDir dir("engram_keys_test");
  const std::string path = dir.File("keys.json");
  KeyFile file;
  CreatedKey created =
      file.Create(S("app:crm"), {Right::kRead, Right::kWrite}, "crm", kNow).value();
  ASSERT_THAT(file.Save(path), IsOk());
  struct stat info;
  ASSERT_EQ(::stat(path.c_str(), &info), 0);
  EXPECT_EQ(info.st_mode & 0777, 0600u);
  std::ifstream in(path);
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_THAT(text, Not(HasSubstr(created.secret)));
  EXPECT_THAT(text, HasSubstr("\"rights\": \"read,write\""));
  StatusOr<KeyFile> loaded = KeyFile::Load(path);
  ASSERT_THAT(loaded.status(), IsOk());
  ASSERT_EQ(loaded->keys().size(), 1u);
  EXPECT_EQ(loaded->keys()[0].id, created.record.id);
  EXPECT_EQ(loaded->keys()[0].name, "crm");
  EXPECT_EQ(loaded->keys()[0].created_at, kNow);
  EXPECT_THAT(loaded->Authenticate(created.secret).status(), IsOk());
}

TEST(KeyFileTest, MissingFileIsNotFoundButLoadOrEmptyIsEmpty) {
  EXPECT_THAT(KeyFile::Load("/nonexistent-dir/keys.json").status(),
              StatusIs(StatusCode::kNotFound));
  StatusOr<KeyFile> empty = KeyFile::LoadOrEmpty("/nonexistent-dir/keys.json");
  ASSERT_THAT(empty.status(), IsOk());
  EXPECT_TRUE(empty->keys().empty());
}

TEST(KeyFileTest, MalformedFilesNameTheProblem) {
  const std::string hash(64, 'a');
  auto parse_error = [](const std::string& text) {
    StatusOr<KeyFile> file = KeyFile::Parse(text);
    return file.ok() ? std::string("ok") : file.status().message();
  };
  EXPECT_THAT(parse_error("{"), HasSubstr("not valid JSON"));
  EXPECT_THAT(parse_error(R"({"version": 2, "keys": []})"), HasSubstr("\"version\""));
  EXPECT_THAT(parse_error(R"({"version": 1, "keys": [], "extra": 1})"), HasSubstr("\"extra\""));
  const std::string good_key =
      R"({"id": "k_1", "sha256": ")" + hash +
      R"(", "scope": "app:x", "rights": "read", "created_at": "2024-01-01T00:00:00Z")";
  EXPECT_EQ(parse_error(R"({"version": 1, "keys": [)" + good_key + "}]}"), "ok");
  EXPECT_THAT(parse_error(R"({"version": 1, "keys": [)" + good_key + R"(, "colour": 1}]})"),
              HasSubstr("\"colour\""));
  EXPECT_THAT(parse_error(R"({"version": 1, "keys": [)" + good_key + R"(, "revoked": "no"}]})"),
              HasSubstr("\"revoked\""));
  EXPECT_THAT(parse_error(R"({"version": 1, "keys": [{"id": "k_1", "sha256": "xyz", "scope": "",
      "rights": "read", "created_at": "2024-01-01"}]})"),
              HasSubstr("\"sha256\""));
  EXPECT_THAT(parse_error(R"({"version": 1, "keys": [{"id": "k_1", "sha256": ")" + hash +
                          R"(", "scope": "", "rights": "fly", "created_at": "2024-01-01"}]})"),
              HasSubstr("\"rights\""));
  EXPECT_THAT(parse_error(R"({"version": 1, "keys": [)" + good_key + "}, " + good_key + "}]}"),
              HasSubstr("repeats"));
}

}  // namespace
}  // namespace engram::auth
