// keys: the API keys file of `engram serve` and `engram keys`. A key is a random secret the
// client sends as `Authorization: Bearer <key>`; the file stores only its SHA-256, with the
// scope prefix and rights it grants, so reading the file does not reveal a usable key.
//
//   ASSIGN_OR_RETURN(engram::auth::KeyFile file, engram::auth::KeyFile::Load("keys.json"));
//   ASSIGN_OR_RETURN(engram::auth::CreatedKey created,
//                    file.Create(engram::Scope::Parse("app:crm").value(),
//                                {engram::auth::Right::kRead}, "crm-reader", now));
//   RETURN_IF_ERROR(file.Save("keys.json"));  // temp file + rename, mode 0600
//   // created.secret ("egk_" + 64 hex digits) is shown once and never stored.
//
// The file is JSON, one object:
//
//   {"version": 1, "keys": [{"id": "k_3f2a9c01d4e5", "name": "crm-reader",
//     "sha256": "<64 hex digits>", "scope": "app:crm", "rights": "read,write",
//     "created_at": "2026-11-23T13:00:00Z", "revoked": false}]}
//
// "scope" is a Scope::ToString path, or "" for the root (every scope); "rights" is a
// comma-separated list of read, write, erase, admin (auth/access.h). Unknown fields are errors.
//
// Thread-safety: a KeyFile is a value; Authenticate is const and may be called concurrently.
#ifndef ENGRAM_AUTH_KEYS_H_
#define ENGRAM_AUTH_KEYS_H_

#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "auth/access.h"
#include "engram/status.h"
#include "engram/types.h"

namespace engram::auth {

// The prefix every key starts with, so a leaked key is recognisable in logs and scanners.
inline constexpr std::string_view kKeyPrefix = "egk_";

struct KeyRecord {
  std::string id;      // "k_" + 12 hex digits; what `engram keys revoke` takes
  std::string name;    // free text chosen at creation; may be empty
  std::string sha256;  // lowercase hex SHA-256 of the whole key, prefix included
  Scope scope;         // the prefix the rights apply to; empty = root
  std::set<Right> rights;
  Timestamp created_at;
  bool revoked = false;
};

struct CreatedKey {
  KeyRecord record;
  std::string secret;  // the key itself: shown once, never stored
};

class KeyFile {
 public:
  KeyFile() = default;

  // Reads and validates the file. A missing file is kNotFound; a malformed one kInvalidArgument
  // naming the key index and field.
  static StatusOr<KeyFile> Load(const std::string& path);
  // Load, or an empty file when `path` does not exist.
  static StatusOr<KeyFile> LoadOrEmpty(const std::string& path);
  // Parses the file's text (Load without the file system).
  static StatusOr<KeyFile> Parse(std::string_view text);

  // Writes the file atomically: a temporary file in the same directory with mode 0600, fsync,
  // rename over `path`.
  Status Save(const std::string& path) const;
  std::string Serialize() const;

  // Adds a key with fresh random id and secret (from the system's random device). `rights` must
  // not be empty (kInvalidArgument).
  StatusOr<CreatedKey> Create(const Scope& scope, const std::set<Right>& rights,
                              std::string_view name, Timestamp now);
  // Marks the key revoked. kNotFound for an unknown id; revoking twice is kFailedPrecondition.
  Status Revoke(std::string_view id);

  // The Access a presented key grants: one grant, the key's rights on its scope, and the key's
  // id (Access::key_id). An unknown, malformed or revoked key is kFailedPrecondition with a
  // message safe to show the client ("unknown or revoked API key"); the server answers 401.
  // Compares hashes, never secrets.
  StatusOr<Access> Authenticate(std::string_view presented_key) const;

  const std::vector<KeyRecord>& keys() const { return keys_; }

 private:
  std::vector<KeyRecord> keys_;
};

}  // namespace engram::auth

#endif  // ENGRAM_AUTH_KEYS_H_
