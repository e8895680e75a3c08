// ui_assets: the web inspector's static files (src/server/ui/), compiled into the binary by
// embed_assets.cmake so `engram serve` needs no files beside it and fetches nothing at run time.
//
//   for (const UiAsset& asset : UiAssets()) { ... asset.path == "index.html" ... }
#ifndef ENGRAM_SERVER_UI_ASSETS_H_
#define ENGRAM_SERVER_UI_ASSETS_H_

#include <span>
#include <string_view>

namespace engram::server {

struct UiAsset {
  std::string_view path;          // file name under src/server/ui/, e.g. "app.js"
  std::string_view content_type;  // from the extension, e.g. "text/javascript; charset=utf-8"
  std::string_view body;          // the file's bytes
};

// Every asset, sorted by path. The views point at static storage.
std::span<const UiAsset> UiAssets();

}  // namespace engram::server

#endif  // ENGRAM_SERVER_UI_ASSETS_H_
