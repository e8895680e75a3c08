// Transport-free API call helpers (see api.h).
#include "server/api.h"

#include <optional>
#include <set>
#include <string>
#include <vector>

#include "core/json_depth.h"
#include "core/utf8.h"
#include "engine/derive_worker.h"
#include "io/json_util.h"

namespace engram::server {
namespace {

constexpr std::size_t kMaxBodyDepth = 64;

// Walks a JSON text and finds the first integer literal beyond 64 bits (which nlohmann reads as a
// double) that lies inside a "metadata" member, where it would be stored rounded. Its place is
// given as a path ("turns[0].metadata.n"). Other numbers are left to the fields' own checks,
// which name the field and its range.
class MetadataBigIntegerFinder : public nlohmann::json_sax<nlohmann::json> {
 public:
  std::optional<std::string> found() const { return found_; }

  bool number_float(number_float_t /*value*/, const string_t& literal) override {
    Value();
    if (!found_ && InMetadata() &&
        literal.find_first_of(".eE") == std::string::npos) {
      found_ = "\"" + Path() + "\" holds the integer " + literal.substr(0, 64);
    }
    return true;
  }
  bool null() override { return Value(); }
  bool boolean(bool /*value*/) override { return Value(); }
  bool number_integer(number_integer_t /*value*/) override { return Value(); }
  bool number_unsigned(number_unsigned_t /*value*/) override { return Value(); }
  bool string(string_t& /*value*/) override { return Value(); }
  bool binary(binary_t& /*value*/) override { return Value(); }
  bool start_object(std::size_t /*size*/) override {
    Value();
    frames_.push_back({false, 0, ""});
    return true;
  }
  bool key(string_t& name) override {
    frames_.back().key = name;
    return true;
  }
  bool end_object() override {
    frames_.pop_back();
    return true;
  }
  bool start_array(std::size_t /*size*/) override {
    Value();
    frames_.push_back({true, 0, ""});
    return true;
  }
  bool end_array() override {
    frames_.pop_back();
    return true;
  }
  bool parse_error(std::size_t /*position*/, const std::string& /*token*/,
                   const nlohmann::detail::exception& /*error*/) override {
    return false;
  }

 private:
  struct Frame {
    bool array = false;
    std::size_t next_index = 0;  // arrays: the index the next value takes
    std::string key;             // objects: the key of the current member
  };

  // A value starts in the innermost container: arrays count it.
  bool Value() {
    if (!frames_.empty() && frames_.back().array) ++frames_.back().next_index;
    return true;
  }
  bool InMetadata() const {
    for (const Frame& frame : frames_) {
      if (!frame.array && frame.key == "metadata") return true;
    }
    return false;
  }
  std::string Path() const {
    std::string path;
    for (const Frame& frame : frames_) {
      if (frame.array) {
        path += "[" + std::to_string(frame.next_index - 1) + "]";
      } else {
        if (!path.empty()) path += ".";
        path += frame.key;
      }
    }
    return path;
  }

  std::vector<Frame> frames_;
  std::optional<std::string> found_;
};

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
  if (const std::optional<int> seconds = RetryAfterSeconds(status)) {
    response.headers.emplace_back("Retry-After", std::to_string(*seconds));
  }
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
  // nlohmann reads an integer beyond 64 bits as a double: metadata would be stored rounded.
  // (The quick scan finds none in almost every body; the walk then names where it is.)
  if (core::FindJsonIntegerBeyond64Bits(body)) {
    MetadataBigIntegerFinder finder;
    nlohmann::json::sax_parse(body, &finder, nlohmann::json::input_format_t::json,
                              /*strict=*/false);
    if (const std::optional<std::string> found = finder.found()) {
      return Status::InvalidArgument("request body field " + *found +
                                     ", outside the 64-bit range [-2^63, 2^64 - 1]; write it as "
                                     "a string to keep it exactly");
    }
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
