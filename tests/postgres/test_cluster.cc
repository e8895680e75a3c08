// The tests' PostgreSQL cluster (see test_cluster.h). ENGRAM_TEST_POSTGRES_DIR (a compile
// definition) is the directory scripts/pg-cluster started it in: its file `url` holds the
// cluster's URL, or `unavailable` says why there is none.
#include "tests/postgres/test_cluster.h"

#include <libpq-fe.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <memory>
#include <sstream>

namespace engram::testing::postgres {
namespace {

std::string ReadFirstLine(const std::string& path) {
  std::ifstream in(path);
  std::string line;
  std::getline(in, line);
  return line;
}

std::string ClusterDir() { return ENGRAM_TEST_POSTGRES_DIR; }

}  // namespace

std::string SkipReason() {
  const char* required = std::getenv("ENGRAM_REQUIRE_POSTGRES");
  if (required != nullptr && std::string_view(required) == "1") return "";
  const std::string unavailable = ReadFirstLine(ClusterDir() + "/unavailable");
  if (!unavailable.empty()) return "no PostgreSQL test cluster: " + unavailable;
  if (ReadFirstLine(ClusterDir() + "/url").empty()) {
    return "no PostgreSQL test cluster in " + ClusterDir() +
           " (run the test through ctest, which starts it with scripts/pg-cluster, or start it "
           "yourself)";
  }
  return "";
}

StatusOr<std::string> RunSql(const std::string& url, const std::string& sql) {
  std::unique_ptr<PGconn, decltype(&PQfinish)> conn(PQconnectdb(url.c_str()), &PQfinish);
  if (PQstatus(conn.get()) != CONNECTION_OK) {
    return Status::Unavailable("test cluster: cannot connect: " +
                               std::string(PQerrorMessage(conn.get())));
  }
  std::unique_ptr<PGresult, decltype(&PQclear)> result(PQexec(conn.get(), sql.c_str()), &PQclear);
  const ExecStatusType status = PQresultStatus(result.get());
  if (status != PGRES_COMMAND_OK && status != PGRES_TUPLES_OK) {
    const char* state = PQresultErrorField(result.get(), PG_DIAG_SQLSTATE);
    return Status(std::string_view(state != nullptr ? state : "") == "42P04"
                      ? StatusCode::kAlreadyExists
                      : StatusCode::kInternal,
                  "test cluster: " + sql.substr(0, 80) + ": " + PQerrorMessage(conn.get()));
  }
  if (PQntuples(result.get()) == 0 || PQnfields(result.get()) == 0) return std::string();
  return std::string(PQgetvalue(result.get(), 0, 0));
}

StatusOr<std::string> DatabaseUrl(std::string_view name) {
  const std::string admin_url = ReadFirstLine(ClusterDir() + "/url");
  if (admin_url.empty()) {
    const std::string unavailable = ReadFirstLine(ClusterDir() + "/unavailable");
    return Status::Unavailable("no PostgreSQL test cluster in " + ClusterDir() + ": " +
                               (unavailable.empty() ? "it was not started (scripts/pg-cluster)"
                                                    : unavailable));
  }
  const std::size_t database = admin_url.find("/postgres?");
  if (database == std::string::npos) {
    return Status::Internal("test cluster URL has no /postgres?: " + admin_url);
  }
  Status created = RunSql(admin_url, "CREATE DATABASE " + std::string(name)).status();
  if (!created.ok() && created.code() != StatusCode::kAlreadyExists) return created;
  std::string url = admin_url;
  url.replace(database, 10, "/" + std::string(name) + "?");
  return url;
}

std::string DatabaseNameFor(std::string_view dir) {
  std::uint64_t hash = 14695981039346656037ull;  // FNV-1a
  for (const char c : dir) {
    hash ^= static_cast<unsigned char>(c);
    hash *= 1099511628211ull;
  }
  char name[24];
  std::snprintf(name, sizeof(name), "t_%016llx", static_cast<unsigned long long>(hash));
  return name;
}

}  // namespace engram::testing::postgres
