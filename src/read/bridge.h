// The entity bridge (DESIGN §5.5; WorldDB §4's entity lane followed from the evidence side): a
// multi-hop step after fusion. The question's words often find one piece of evidence ("I just
// finished 'Middlemarch' by George Eliot") while another piece shares no word with the
// question but names the same rare entity ("I started another George Eliot novel"). So the
// entities of the best candidates lead to the other turns that mention them.
//
//   seeds     the best bridge_seeds turns of the sorted list;
//   entities  the entity classes (read/entity_route.h ScopeGraph) a seed mentions by name, that
//             are no speaker and that at most bridge_max_turns turns of the scope mention (rare
//             entities carry the link; "Caroline" or "Paris" in every other turn do not);
//   bonus     every turn of another session, of the seed's role, mentioning such an entity (the
//             neighbour expansion covers the seed's own session; a user's seed leads to the
//             user's turns, not to an assistant's lists that name the same thing) gets
//             + bridge_weight × the seed's score
//             (the largest over seeds and entities; computed before any is added, so bonuses
//             never chain). Turns no route found join the list with the bonus as their score.
// An Adjustment named "bridge" says which entity and which seed. bridge_weight 0 = off.
#ifndef ENGRAM_READ_BRIDGE_H_
#define ENGRAM_READ_BRIDGE_H_

#include <memory>
#include <span>
#include <vector>

#include "engram/config.h"
#include "read/adjust.h"
#include "read/entity_route.h"

namespace engram::read {

// `ranked` must be sorted; `layout` gives the turns' roles. Returns the number of turns added;
// leaves the list unsorted.
std::size_t ApplyBridge(std::vector<Ranked>& ranked,
                        std::span<const std::shared_ptr<const ScopeGraph>> graphs,
                        const TurnLayout& layout, const RecallConfig& config);

}  // namespace engram::read

#endif  // ENGRAM_READ_BRIDGE_H_
