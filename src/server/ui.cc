// The web inspector's static files (see ui.h).
#include "server/ui.h"

#include <string_view>

#include "server/ui_assets.h"

namespace engram::server {
namespace {

RawResponse PlainResponse(int status, std::string body) {
  RawResponse response;
  response.status = status;
  response.content_type = "text/plain; charset=utf-8";
  response.body = std::move(body);
  return response;
}

void AddSecurityHeaders(RawResponse* response) {
  response->headers.emplace_back("Content-Security-Policy", kUiContentSecurityPolicy);
  response->headers.emplace_back("X-Content-Type-Options", "nosniff");
  response->headers.emplace_back("Referrer-Policy", "no-referrer");
  response->headers.emplace_back("X-Frame-Options", "DENY");
  // The assets change with the binary: revalidate rather than serve a stale page after upgrade.
  response->headers.emplace_back("Cache-Control", "no-cache");
}

}  // namespace

RawResponse ServeUi(const RawRequest& request) {
  RawResponse response;
  if (request.method != "GET" && request.method != "HEAD") {
    response = PlainResponse(405, "the inspector's pages are read with GET\n");
    response.headers.emplace_back("Allow", "GET, HEAD");
  } else if (request.path == "/ui") {
    response = PlainResponse(301, "moved to /ui/\n");
    response.headers.emplace_back("Location", "/ui/");
  } else {
    std::string_view file = std::string_view(request.path).substr(4);  // after "/ui/"
    if (file.empty()) file = "index.html";
    response = PlainResponse(404, "no such page in the inspector\n");
    for (const UiAsset& asset : UiAssets()) {
      if (asset.path != file) continue;
      response.status = 200;
      response.content_type = std::string(asset.content_type);
      response.body = std::string(asset.body);
      break;
    }
  }
  AddSecurityHeaders(&response);
  return response;
}

}  // namespace engram::server
