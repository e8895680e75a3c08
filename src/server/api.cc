// Transport-free API call helpers (see api.h).
#include "server/api.h"

#include <set>
#include <vector>

#include "core/json_depth.h"
#include "core/utf8.h"
#include "io/json_util.h"

namespace engram::server {
namespace {

constexpr std::size_t kMaxBodyDepth = 64;

}  // namespace

int HttpStatusFor(StatusCode code) {
  switch (code) {
    case StatusCode::kOk:
      return 200;
    case StatusCode::kInvalidArgument:
      return 400;
    case StatusCode::kNotFound:
      return 404;
    case StatusCode::kAlreadyExists:
    case StatusCode::kFailedPrecondition:
      return 409;
    case StatusCode::kResourceExhausted:
      return 413;
    case StatusCode::kUnavailable:
      return 503;
    case StatusCode::kDeadlineExceeded:
      return 504;
    case StatusCode::kCorruption:
    case StatusCode::kInternal:
      return 500;
  }
  return 500;
}

ApiResponse ErrorResponse(const Status& status, std::string_view request_id) {
  ApiResponse response;
  response.status = HttpStatusFor(status.code());
  io::Json error = io::ErrorToJson(status);
  error["error"]["request_id"] = std::string(request_id);
  response.body = std::move(error);
  return response;
}

namespace {

ApiResponse CodedError(int status, std::string_view code, std::string_view message,
                       std::string_view request_id) {
  ApiResponse response;
  response.status = status;
  io::Json error = io::Json::object();
  error["code"] = std::string(code);
  error["message"] = std::string(message);
  error["request_id"] = std::string(request_id);
  response.body = io::Json::object();
  response.body["error"] = std::move(error);
  return response;
}

}  // namespace

ApiResponse UnauthenticatedResponse(std::string_view message, std::string_view request_id) {
  return CodedError(401, "UNAUTHENTICATED", message, request_id);
}

ApiResponse ForbiddenResponse(std::string_view message, std::string_view request_id) {
  return CodedError(403, "PERMISSION_DENIED", message, request_id);
}

StatusOr<nlohmann::json> ParseJsonBody(std::string_view body) {
  if (body.empty())
    return Status::InvalidArgument("request body is empty; a JSON object is expected");
  if (auto bad = core::FindInvalidUtf8(body)) {
    return Status::InvalidArgument("request body is not valid UTF-8 (byte " + std::to_string(*bad) +
                                   ")");
  }
  if (core::JsonNestingDepth(body, kMaxBodyDepth + 1) > kMaxBodyDepth) {
    return Status::InvalidArgument("request body is nested deeper than " +
                                   std::to_string(kMaxBodyDepth) + " levels");
  }
  // A repeated key is an error rather than nlohmann's silent last-one-wins.
  io::internal::DuplicateKeyFinder duplicates;
  auto callback = [&duplicates](int /*depth*/, nlohmann::json::parse_event_t event,
                                nlohmann::json& parsed) -> bool {
    duplicates.Observe(event, parsed);
    return true;
  };
  nlohmann::json value;
  try {
    value = nlohmann::json::parse(body, callback);
  } catch (const nlohmann::json::exception& error) {  // syntax, or a number out of range
    // "[json.exception.parse_error.101] parse error at line 1, column 5: ..." -> after "] ".
    const std::string what = error.what();
    const std::size_t tag_end = what.find("] ");
    return Status::InvalidArgument("request body is not valid JSON: " +
                                   (tag_end == std::string::npos ? what : what.substr(tag_end + 2)));
  }
  if (!duplicates.duplicate().empty()) {
    return Status::InvalidArgument("request body repeats the key \"" + duplicates.duplicate() +
                                   "\" in one object");
  }
  return value;
}

std::optional<std::string> QueryValue(const ApiRequest& request, std::string_view name) {
  auto found = request.query.find(std::string(name));
  if (found == request.query.end()) return std::nullopt;
  return found->second;
}

}  // namespace engram::server
