// The scene route (EverMemOS §3.5 "MemScene selection" and "episode re-ranking", DESIGN §5.3):
// recall guided by the episodes and scenes a consolidation stored (src/consolidate). It proposes
// nothing for a scope that was never consolidated.
//
//   1. Episode relevance: every active episode of the searched scopes is ranked twice — as one
//      BM25 document made of its turns (turn_layout.h TermMatrix; N = the episodes) and by the
//      best cosine of its turns among the vector index's nearest turns — and the two ranks are
//      fused by reciprocal rank fusion: relevance = 1 / (k + rank_bm25) + 1 / (k + rank_dense),
//      k = [recall] rrf_k (a ranking the episode is absent from adds nothing).
//   2. Scene selection: each scene scores the maximum relevance of its member episodes; the best
//      scene_select scenes with a score above 0 are kept.
//   3. Episode re-ranking: the kept scenes' episodes are pooled, each scored
//        relevance(episode) + scene_member_weight × score(its scene),
//      so a scene's other episodes follow its best one (a theme told across sessions), and the
//      best scene_episodes are kept.
//   4. Turns: the kept episodes' turns, best episode first; within an episode by the turn's own
//      BM25, then sequence. A turn's score is its episode's.
// Ties: scenes and episodes by their order in the store (sequence), turns by sequence.
// Deterministic: a pure function of the store's episodes and scenes (read through the
// journal-following ScopeStructureCache, scope_structure.h), the projections and the query. Episodes whose turns are not in the layout (another scope) are skipped.
#ifndef ENGRAM_READ_SCENE_ROUTE_H_
#define ENGRAM_READ_SCENE_ROUTE_H_

#include <memory>

#include "read/route.h"
#include "read/scope_structure.h"

namespace engram::read {

class SceneRoute final : public Route {
 public:
  static constexpr std::string_view kName = "scene";
  explicit SceneRoute(std::shared_ptr<ScopeStructureCache> cache) : cache_(std::move(cache)) {}
  std::string_view name() const override { return kName; }
  StatusOr<std::vector<RouteCandidate>> Run(const RouteContext& context) const override;

 private:
  std::shared_ptr<ScopeStructureCache> cache_;
};

}  // namespace engram::read

#endif  // ENGRAM_READ_SCENE_ROUTE_H_
