// api.h: the transport-free shape of one HTTP API call, shared by the native /v1 routes, the
// mem0-compatible routes and the HTTP server that dispatches to them. Handlers take an ApiRequest
// (method, path parameters, query, raw body, the caller's Access) and return an ApiResponse (HTTP
// status and JSON body); they never see the HTTP wire, so they are tested by calling them directly.
//
//   ApiResponse Get(Engine& engine, const ApiRequest& request) {
//     ASSIGN_OR_RETURN... // handlers turn a Status into a response with ErrorResponse
//   }
//
// Bodies are parsed with ParseJsonBody, which refuses what nlohmann's parser would let through
// silently: duplicated keys, invalid UTF-8, nesting deeper than 64 levels.
#ifndef ENGRAM_SERVER_API_H_
#define ENGRAM_SERVER_API_H_

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "auth/access.h"
#include "engram/status.h"
#include "io/api_json.h"

namespace engram::server {

struct ApiRequest {
  std::string method;                              // "GET", "POST", "PUT", "DELETE"
  std::string path;                                // "/v1/memories/3f2a..." (no query string)
  std::map<std::string, std::string> path_params;  // {"id": "3f2a..."}
  std::multimap<std::string, std::string> query;   // decoded query parameters
  std::string body;                                // raw request body ("" when none)
  const auth::Access* access = nullptr;            // never null when a handler runs
  std::string request_id;                          // echoed in X-Request-Id and error bodies
};

struct ApiResponse {
  int status = 200;
  io::Json body;  // serialised with io::Dump; null body with status 204
  // Headers beyond Content-Type, e.g. Retry-After on a write refused for back-pressure.
  std::vector<std::pair<std::string, std::string>> headers;
};

// What serves one route: called on a worker thread of the HTTP server, possibly concurrently
// with itself; never throws (the server turns an escaped exception into a 500 anyway).
using ApiHandler = std::function<ApiResponse(const ApiRequest&)>;

// One route of a route group (the native /v1 API, the mem0-compatible API, ...). `pattern` is
// matched segment by segment against the request path: a literal segment matches itself, a
// `{name}` segment matches one non-empty segment and is passed in ApiRequest::path_params["name"]
// (percent-decoded), and `{scope}` matches one or more consecutive segments that each contain a
// ':' (a scope path such as app:crm/user:alice, written with literal slashes or %2F). A trailing
// '/' on the request path is ignored. Example:
//
//   Route{"GET", "/v1/memories/{id}", [&](const ApiRequest& r) { return Get(engine, r); }}
//
// The server authenticates the caller before the handler runs (ApiRequest::access); the handler
// checks that access against every scope it touches.
struct Route {
  std::string method;   // "GET", "POST", "PUT", "DELETE", "PATCH"
  std::string pattern;  // "/v1/memories/{id}"; also the route's label in metrics and logs
  ApiHandler handler;
};
using RouteList = std::vector<Route>;

// The HTTP status for an engine Status: kInvalidArgument 400, kNotFound 404, kAlreadyExists
// 409, kFailedPrecondition 409, kResourceExhausted 413, kUnavailable 503, kDeadlineExceeded 504,
// kCorruption and kInternal 500, kOk 200.
int HttpStatusFor(StatusCode code);

// The native error body {"error": {"code", "message", "request_id"}} with HttpStatusFor's status,
// and a Retry-After header (seconds) when the status carries a retry hint (a write refused for
// back-pressure: 503).
ApiResponse ErrorResponse(const Status& status, std::string_view request_id);

// 401 {"error": {"code": "UNAUTHENTICATED", ...}}: no key, an unknown key or a revoked key.
ApiResponse UnauthenticatedResponse(std::string_view message, std::string_view request_id);
// 403 {"error": {"code": "PERMISSION_DENIED", ...}}: the key lacks a right on a scope the request
// names. (A memory the key cannot read is reported with a 404, never a 403.)
ApiResponse ForbiddenResponse(std::string_view message, std::string_view request_id);

// Parses a request body as a JSON value. kInvalidArgument naming the problem: empty body, invalid
// UTF-8 (with the byte offset), nesting deeper than 64 levels, a syntax error (line and column),
// or a key that appears twice in one object (naming the key).
StatusOr<nlohmann::json> ParseJsonBody(std::string_view body);

// The first query value of `name`, if any.
std::optional<std::string> QueryValue(const ApiRequest& request, std::string_view name);

}  // namespace engram::server

#endif  // ENGRAM_SERVER_API_H_
