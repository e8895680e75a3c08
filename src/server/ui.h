// ui: the web inspector at /ui — static pages (src/server/ui/, embedded by ui_assets) that call
// the /v1 API from the browser with the user's key. The pages themselves are public (they hold no
// data); every call they make is authenticated like any other API client's.
//
//   server.MountPublic("/ui", ServeUi);   // GET /ui/ → index.html, GET /ui/app.js → app.js
//
// Every answer carries a strict Content-Security-Policy (kUiContentSecurityPolicy: scripts,
// styles and API calls only from the server itself, no inline script, no framing), nosniff and
// no-referrer, so memory text that slips past the pages' escaping still cannot run.
#ifndef ENGRAM_SERVER_UI_H_
#define ENGRAM_SERVER_UI_H_

#include "server/http_server.h"

namespace engram::server {

inline constexpr const char* kUiContentSecurityPolicy =
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
    "connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

// Answers a request under /ui: "/ui" redirects to "/ui/", "/ui/" is index.html, "/ui/<file>" an
// embedded asset; anything else 404, a method other than GET or HEAD 405.
RawResponse ServeUi(const RawRequest& request);

}  // namespace engram::server

#endif  // ENGRAM_SERVER_UI_H_
