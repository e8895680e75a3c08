// The API keys file (see keys.h).
#include "auth/keys.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <nlohmann/json.hpp>
#include <random>
#include <sstream>

#include "core/files.h"
#include "core/sha256.h"

namespace engram::auth {
namespace {

using OrderedJson = nlohmann::ordered_json;

constexpr int kFileVersion = 1;

std::string Hex(const std::uint8_t* bytes, std::size_t size) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string out;
  out.reserve(size * 2);
  for (std::size_t i = 0; i < size; ++i) {
    out += kDigits[bytes[i] >> 4];
    out += kDigits[bytes[i] & 0x0F];
  }
  return out;
}

// `count` bytes from /dev/urandom, falling back to std::random_device.
std::vector<std::uint8_t> RandomBytes(std::size_t count) {
  std::vector<std::uint8_t> bytes(count);
  std::size_t filled = 0;
  const int fd = ::open("/dev/urandom", O_RDONLY | O_CLOEXEC);
  if (fd >= 0) {
    while (filled < count) {
      const ssize_t got = ::read(fd, bytes.data() + filled, count - filled);
      if (got <= 0) break;
      filled += static_cast<std::size_t>(got);
    }
    ::close(fd);
  }
  if (filled < count) {
    std::random_device device;
    for (std::size_t i = filled; i < count; ++i) {
      bytes[i] = static_cast<std::uint8_t>(device() & 0xFF);
    }
  }
  return bytes;
}

bool IsLowerHex(std::string_view text) {
  for (const char c : text) {
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return false;
  }
  return true;
}

// Equal strings of equal length, compared without an early exit.
bool ConstantTimeEquals(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  unsigned char diff = 0;
  for (std::size_t i = 0; i < a.size(); ++i) {
    diff |= static_cast<unsigned char>(a[i] ^ b[i]);
  }
  return diff == 0;
}

Status FieldError(std::size_t index, std::string_view field, std::string_view problem) {
  return Status::InvalidArgument("keys file: key " + std::to_string(index) + ": \"" +
                                 std::string(field) + "\" " + std::string(problem));
}

StatusOr<KeyRecord> ParseRecord(const nlohmann::json& value, std::size_t index) {
  if (!value.is_object()) {
    return Status::InvalidArgument("keys file: key " + std::to_string(index) + " is not an object");
  }
  static const std::set<std::string> kFields = {"id",     "name",       "sha256", "scope",
                                                "rights", "created_at", "revoked"};
  for (const auto& [name, field] : value.items()) {
    if (kFields.count(name) == 0) return FieldError(index, name, "is not a known field");
  }
  auto string_field = [&](const char* name, bool required) -> StatusOr<std::string> {
    const auto found = value.find(name);
    if (found == value.end()) {
      if (required) return FieldError(index, name, "is missing");
      return std::string();
    }
    if (!found->is_string()) return FieldError(index, name, "must be a string");
    return found->get<std::string>();
  };
  KeyRecord record;
  ASSIGN_OR_RETURN(record.id, string_field("id", true));
  if (record.id.empty()) return FieldError(index, "id", "must not be empty");
  ASSIGN_OR_RETURN(record.name, string_field("name", false));
  ASSIGN_OR_RETURN(record.sha256, string_field("sha256", true));
  if (record.sha256.size() != 64 || !IsLowerHex(record.sha256)) {
    return FieldError(index, "sha256", "must be 64 lowercase hex digits");
  }
  ASSIGN_OR_RETURN(const std::string scope, string_field("scope", true));
  if (!scope.empty()) {
    StatusOr<Scope> parsed = Scope::Parse(scope);
    if (!parsed.ok()) return FieldError(index, "scope", parsed.status().message());
    record.scope = *std::move(parsed);
  }
  ASSIGN_OR_RETURN(const std::string rights, string_field("rights", true));
  StatusOr<std::set<Right>> parsed_rights = ParseRights(rights);
  if (!parsed_rights.ok()) return FieldError(index, "rights", parsed_rights.status().message());
  record.rights = *std::move(parsed_rights);
  ASSIGN_OR_RETURN(const std::string created_at, string_field("created_at", true));
  StatusOr<Timestamp> created = ParseTimestamp(created_at);
  if (!created.ok()) return FieldError(index, "created_at", created.status().message());
  record.created_at = *created;
  const auto revoked = value.find("revoked");
  if (revoked != value.end()) {
    if (!revoked->is_boolean()) return FieldError(index, "revoked", "must be true or false");
    record.revoked = revoked->get<bool>();
  }
  return record;
}

}  // namespace

StatusOr<KeyFile> KeyFile::Parse(std::string_view text) {
  nlohmann::json root;
  try {
    root = nlohmann::json::parse(text);
  } catch (const nlohmann::json::exception& error) {
    return Status::InvalidArgument(std::string("keys file is not valid JSON: ") + error.what());
  }
  if (!root.is_object()) return Status::InvalidArgument("keys file: expected a JSON object");
  for (const auto& [name, field] : root.items()) {
    if (name != "version" && name != "keys") {
      return Status::InvalidArgument("keys file: unknown field \"" + name + "\"");
    }
  }
  const auto version = root.find("version");
  if (version == root.end() || !version->is_number_integer() ||
      version->get<long long>() != kFileVersion) {
    return Status::InvalidArgument("keys file: \"version\" must be 1");
  }
  const auto keys = root.find("keys");
  if (keys == root.end() || !keys->is_array()) {
    return Status::InvalidArgument("keys file: \"keys\" must be an array");
  }
  KeyFile file;
  std::set<std::string> ids;
  for (std::size_t i = 0; i < keys->size(); ++i) {
    ASSIGN_OR_RETURN(KeyRecord record, ParseRecord((*keys)[i], i));
    if (!ids.insert(record.id).second) return FieldError(i, "id", "repeats an earlier key's id");
    file.keys_.push_back(std::move(record));
  }
  return file;
}

StatusOr<KeyFile> KeyFile::Load(const std::string& path) {
  StatusOr<std::string> text = core::ReadWholeFile(path, "keys file");
  if (!text.ok()) {
    return Status::NotFound("keys file " + path + " does not exist or cannot be read");
  }
  StatusOr<KeyFile> file = Parse(*text);
  if (!file.ok()) {
    return Status(file.status().code(), path + ": " + file.status().message());
  }
  return file;
}

StatusOr<KeyFile> KeyFile::LoadOrEmpty(const std::string& path) {
  struct stat info;
  if (::stat(path.c_str(), &info) != 0 && errno == ENOENT) return KeyFile();
  return Load(path);
}

std::string KeyFile::Serialize() const {
  OrderedJson root = OrderedJson::object();
  root["version"] = kFileVersion;
  OrderedJson list = OrderedJson::array();
  for (const KeyRecord& record : keys_) {
    OrderedJson key = OrderedJson::object();
    key["id"] = record.id;
    key["name"] = record.name;
    key["sha256"] = record.sha256;
    key["scope"] = record.scope.empty() ? std::string() : record.scope.ToString();
    key["rights"] = RightsToString(record.rights);
    key["created_at"] = FormatTimestamp(record.created_at);
    key["revoked"] = record.revoked;
    list.push_back(std::move(key));
  }
  root["keys"] = std::move(list);
  return root.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
}

Status KeyFile::Save(const std::string& path) const {
  const std::string text = Serialize();
  std::string temp = path + ".tmp-XXXXXX";
  const int fd = ::mkstemp(temp.data());
  if (fd < 0) {
    return Status::Unavailable("cannot create a temporary file next to " + path + ": " +
                               std::strerror(errno));
  }
  Status status;
  if (::fchmod(fd, 0600) != 0) {
    status = Status::Unavailable("cannot set mode 0600 on " + temp + ": " + std::strerror(errno));
  }
  std::size_t written = 0;
  while (status.ok() && written < text.size()) {
    const ssize_t wrote = ::write(fd, text.data() + written, text.size() - written);
    if (wrote < 0) {
      if (errno == EINTR) continue;
      status = Status::Unavailable("cannot write " + temp + ": " + std::strerror(errno));
      break;
    }
    written += static_cast<std::size_t>(wrote);
  }
  if (status.ok() && ::fsync(fd) != 0) {
    status = Status::Unavailable("cannot sync " + temp + ": " + std::strerror(errno));
  }
  ::close(fd);
  if (status.ok() && ::rename(temp.c_str(), path.c_str()) != 0) {
    status =
        Status::Unavailable("cannot rename " + temp + " to " + path + ": " + std::strerror(errno));
  }
  if (!status.ok()) ::unlink(temp.c_str());
  return status;
}

StatusOr<CreatedKey> KeyFile::Create(const Scope& scope, const std::set<Right>& rights,
                                     std::string_view name, Timestamp now) {
  if (rights.empty()) return Status::InvalidArgument("a key needs at least one right");
  if (!scope.empty()) RETURN_IF_ERROR(scope.Validate());
  CreatedKey created;
  // Ids are random too (not derived from the secret), retried on the unlikely collision.
  for (int attempt = 0; attempt < 8 && created.record.id.empty(); ++attempt) {
    const std::vector<std::uint8_t> id_bytes = RandomBytes(6);
    std::string id = "k_" + Hex(id_bytes.data(), id_bytes.size());
    bool taken = false;
    for (const KeyRecord& record : keys_) taken = taken || record.id == id;
    if (!taken) created.record.id = std::move(id);
  }
  if (created.record.id.empty()) return Status::Internal("could not draw an unused key id");
  const std::vector<std::uint8_t> secret = RandomBytes(32);
  created.secret = std::string(kKeyPrefix) + Hex(secret.data(), secret.size());
  created.record.name = std::string(name);
  created.record.sha256 = core::Sha256Hex(created.secret);
  created.record.scope = scope;
  created.record.rights = rights;
  created.record.created_at = now;
  keys_.push_back(created.record);
  return created;
}

Status KeyFile::Revoke(std::string_view id) {
  for (KeyRecord& record : keys_) {
    if (record.id != id) continue;
    if (record.revoked) {
      return Status::FailedPrecondition("key " + record.id + " is already revoked");
    }
    record.revoked = true;
    return Status::Ok();
  }
  return Status::NotFound("no key with id \"" + std::string(id) + "\"");
}

StatusOr<Access> KeyFile::Authenticate(std::string_view presented_key) const {
  const Status refused = Status::FailedPrecondition("unknown or revoked API key");
  if (presented_key.substr(0, kKeyPrefix.size()) != kKeyPrefix || presented_key.size() > 256) {
    return refused;
  }
  const std::string digest = core::Sha256Hex(presented_key);
  const KeyRecord* match = nullptr;
  for (const KeyRecord& record : keys_) {
    if (ConstantTimeEquals(record.sha256, digest)) match = &record;
  }
  if (match == nullptr || match->revoked) return refused;
  return Access::Granted({Grant{.prefix = match->scope, .rights = match->rights}}, match->id);
}

}  // namespace engram::auth
