// scope_views: derived views of one scope built from the public Engine API — its facts and its
// entities — in the JSON shapes `engram facts --json` and `engram entities --json` print, so the
// REST routes and the CLI agree. A fact's or entity's fields live in its metadata; its chains
// (supersedes, corrects, contradicts, same_as, mentions) come from Engine::History.
#ifndef ENGRAM_SERVER_SCOPE_VIEWS_H_
#define ENGRAM_SERVER_SCOPE_VIEWS_H_

#include "engram/engine.h"
#include "engram/status.h"
#include "io/api_json.h"

namespace engram::server {

struct FactsFilter {
  bool all = false;       // also superseded, contradicted, retired and rejected facts
  bool rejected = false;  // only the candidates the validator rejected
};

// {"scope", "all", "rejected", "count", "facts": [{id, status, sequence, kind, subject, predicate,
// object, polarity, extractor, uncertain, time, text, valid_from, valid_to, provenance,
// supersedes, superseded_by, corrects, corrected_by, contradicts, rejected}]}
StatusOr<io::Json> FactsView(Engine& engine, const Scope& scope, const FactsFilter& filter);

// {"scope", "count", "entities": [{id, name, kind, mentions, same_as, first_seen, provenance}]}
StatusOr<io::Json> EntitiesView(Engine& engine, const Scope& scope);

}  // namespace engram::server

#endif  // ENGRAM_SERVER_SCOPE_VIEWS_H_
