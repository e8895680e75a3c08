// openapi: the OpenAPI 3.1 document of the native REST API, served at GET /v1/openapi.json. It
// describes every /v1 route of api_v1.cc with its request and response schemas; the server
// tests validate each route's actual responses against these schemas, so the two cannot drift.
#ifndef ENGRAM_SERVER_OPENAPI_H_
#define ENGRAM_SERVER_OPENAPI_H_

#include "io/api_json.h"

namespace engram::server {

// The document (built once, then copied).
const io::Json& OpenApiDocument();

}  // namespace engram::server

#endif  // ENGRAM_SERVER_OPENAPI_H_
