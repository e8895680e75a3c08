// keys_command.cc: `engram keys create|list|revoke` — the API keys file of `engram serve`
// (auth/keys.h). `create` prints the new key once; the file keeps only its SHA-256.
//
//   engram keys create --keys keys.json --scope app:crm --rights read,write --name crm-backend
//   engram keys list --keys keys.json
//   engram keys revoke --keys keys.json k_3f2a9c01d4e5
//
// --scope '*' grants the rights on every scope (a root key; with admin it may run server-wide
// operations such as rebuilding the index).
#include <memory>
#include <string>

#include "auth/keys.h"
#include "cli/cli.h"
#include "engram/clock.h"

namespace engram::cli {
namespace {

struct KeysArgs {
  std::string keys;
  std::string scope;
  std::string rights;
  std::string name;
  std::string id;
};

int RunCreate(const KeysArgs& args, Console& console) {
  Scope scope;
  if (args.scope != "*") {
    StatusOr<Scope> parsed = Scope::Parse(args.scope);
    if (!parsed.ok()) {
      return console.UsageError("keys create", "--scope: " + parsed.status().message());
    }
    scope = *std::move(parsed);
  }
  StatusOr<std::set<auth::Right>> rights = auth::ParseRights(args.rights);
  if (!rights.ok())
    return console.UsageError("keys create", "--rights: " + rights.status().message());
  StatusOr<auth::KeyFile> file = auth::KeyFile::LoadOrEmpty(args.keys);
  if (!file.ok()) return console.Fail("keys create", file.status());
  StatusOr<auth::CreatedKey> created =
      file->Create(scope, *rights, args.name, SystemClock()->Now());
  if (!created.ok()) return console.Fail("keys create", created.status());
  const Status saved = file->Save(args.keys);
  if (!saved.ok()) return console.Fail("keys create", saved);
  if (console.json()) {
    io::Json json = io::Json::object();
    json["id"] = created->record.id;
    json["name"] = created->record.name;
    json["scope"] = scope.empty() ? "*" : scope.ToString();
    json["rights"] = auth::RightsToString(created->record.rights);
    json["key"] = created->secret;
    console.PrintJson(json);
  } else {
    console.out() << created->secret << "\n";
    console.Note("engram: key " + created->record.id + " created for scope " +
                 (scope.empty() ? std::string("*") : scope.ToString()) + " with rights " +
                 auth::RightsToString(created->record.rights) +
                 "; it is shown only now (the file keeps its hash)");
  }
  return ToInt(ExitCode::kOk);
}

int RunList(const KeysArgs& args, Console& console) {
  StatusOr<auth::KeyFile> file = auth::KeyFile::Load(args.keys);
  if (!file.ok()) return console.Fail("keys list", file.status());
  if (console.json()) {
    io::Json list = io::Json::array();
    for (const auth::KeyRecord& record : file->keys()) {
      io::Json json = io::Json::object();
      json["id"] = record.id;
      json["name"] = record.name;
      json["scope"] = record.scope.empty() ? "*" : record.scope.ToString();
      json["rights"] = auth::RightsToString(record.rights);
      json["created_at"] = FormatTimestamp(record.created_at);
      json["revoked"] = record.revoked;
      list.push_back(std::move(json));
    }
    io::Json json = io::Json::object();
    json["keys"] = std::move(list);
    console.PrintJson(json);
    return ToInt(ExitCode::kOk);
  }
  for (const auth::KeyRecord& record : file->keys()) {
    console.out() << record.id << "  " << (record.revoked ? "revoked" : "active") << "  "
                  << Printable(record.scope.empty() ? "*" : record.scope.ToString()) << "  "
                  << auth::RightsToString(record.rights) << "  "
                  << FormatTimestamp(record.created_at) << "  " << Printable(record.name) << "\n";
  }
  return ToInt(ExitCode::kOk);
}

int RunRevoke(const KeysArgs& args, Console& console) {
  StatusOr<auth::KeyFile> file = auth::KeyFile::Load(args.keys);
  if (!file.ok()) return console.Fail("keys revoke", file.status());
  const Status revoked = file->Revoke(args.id);
  if (!revoked.ok()) return console.Fail("keys revoke", revoked);
  const Status saved = file->Save(args.keys);
  if (!saved.ok()) return console.Fail("keys revoke", saved);
  if (console.json()) {
    io::Json json = io::Json::object();
    json["id"] = args.id;
    json["revoked"] = true;
    console.PrintJson(json);
  } else {
    console.Note("engram: key " + args.id +
                 " revoked (a running server sees it after SIGHUP or "
                 "a restart)");
  }
  return ToInt(ExitCode::kOk);
}

}  // namespace

void AddKeysCommands(CLI::App& app, Console& console, CommandList* commands) {
  auto args = std::make_shared<KeysArgs>();
  CLI::App* keys = app.add_subcommand("keys", "Create, list and revoke API keys of engram serve");
  keys->require_subcommand(1);

  CLI::App* create = keys->add_subcommand("create", "Create a key and print it (once)");
  create->add_option("--keys", args->keys, "Keys file (created if missing)")->required();
  create->add_option("--scope", args->scope, "Scope prefix the rights apply to ('*' = every scope)")
      ->required();
  create->add_option("--rights", args->rights, "Comma-separated: read, write, erase, admin")
      ->required();
  create->add_option("--name", args->name, "A label for the key");
  commands->push_back({create, [args, &console] { return RunCreate(*args, console); }});

  CLI::App* list = keys->add_subcommand("list", "List the keys (never the keys themselves)");
  list->add_option("--keys", args->keys, "Keys file")->required();
  commands->push_back({list, [args, &console] { return RunList(*args, console); }});

  CLI::App* revoke = keys->add_subcommand("revoke", "Revoke a key by id");
  revoke->add_option("--keys", args->keys, "Keys file")->required();
  revoke->add_option("id", args->id, "Key id (k_...)")->required();
  commands->push_back({revoke, [args, &console] { return RunRevoke(*args, console); }});
}

}  // namespace engram::cli
