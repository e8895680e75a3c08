// Reconciliation of facts with the scope's current facts (see reconcile.h).
#include "write/reconcile.h"

#include <algorithm>
#include <nlohmann/json.hpp>

#include "core/ids.h"
#include "store/journal.h"
#include "write/predicates.h"

namespace engram::write {
namespace {

nlohmann::json TimeJson(const std::optional<Timestamp>& time) {
  if (!time.has_value()) return nullptr;
  return FormatTimestamp(*time);
}

bool IsCurrentKind(const FactCandidate& candidate) {
  return !candidate.past && candidate.kind != FactKind::kEvent;
}

}  // namespace

std::string_view ReconcileOutcomeName(ReconcileOutcome outcome) {
  switch (outcome) {
    case ReconcileOutcome::kInserted:
      return "inserted";
    case ReconcileOutcome::kReinforced:
      return "reinforced";
    case ReconcileOutcome::kSuperseded:
      return "superseded";
    case ReconcileOutcome::kCorrected:
      return "corrected";
    case ReconcileOutcome::kHistory:
      return "history";
    case ReconcileOutcome::kContradicted:
      return "contradicted";
  }
  return "inserted";
}

std::string SlotKey(const FactCandidate& candidate) {
  std::string key = NormalizeFactText(candidate.subject) + "|" + candidate.predicate;
  if (!candidate.single_valued || candidate.negated) {
    key += "|" + NormalizeFactText(candidate.object);
  }
  return key;
}

std::string FactContentJson(const FactToStore& fact, std::string_view turn_id,
                            const Verdict* rejected) {
  const FactCandidate& c = fact.candidate;
  nlohmann::json time = nullptr;
  if (c.time.has_value()) {
    time = {{"text", c.time->text},
            {"from", FormatTimestamp(c.time->from)},
            {"to", FormatTimestamp(c.time->to)},
            {"granularity", c.time->granularity}};
  }
  nlohmann::json content = {
      {"subject", c.subject},
      {"subject_is_speaker", c.subject_is_speaker},
      {"predicate", c.predicate},
      {"object", c.object},
      {"kind", FactKindName(c.kind)},
      {"polarity", c.negated ? "-" : "+"},
      {"uncertain", c.uncertain},
      {"past", c.past},
      {"single_valued", c.single_valued},
      {"slot", SlotKey(c)},
      {"time", time},
      {"valid_from", TimeJson(fact.valid_from)},
      {"valid_to", TimeJson(fact.valid_to)},
      {"extractor", c.extractor},
      {"correction", fact.from_correction},
      {"turn", std::string(turn_id)},
      {"span", {c.begin, c.end}},
  };
  if (!fact.corrects_id.empty()) content["corrects"] = fact.corrects_id;
  if (rejected != nullptr) {
    content["rejected"] = {{"check", FactCheckName(rejected->failed)},
                           {"reason", rejected->reason}};
  }
  return content.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

std::string RenderFact(const FactCandidate& c) {
  std::string predicate = c.predicate;
  std::replace(predicate.begin(), predicate.end(), '_', ' ');
  if (c.kind == FactKind::kRelation) {
    return c.object + " is " + c.subject + "'s " + predicate;
  }
  if (c.negated) {
    if (c.predicate == "likes") return c.subject + " does not like " + c.object;
    if (c.predicate == "instruction") return c.subject + " asks: do not " + c.object;
    return c.subject + " (not) " + predicate + " " + c.object;
  }
  if (c.predicate == "instruction") return c.subject + " asks: " + c.object;
  return c.subject + " " + predicate + " " + c.object;
}

Status FactReconciler::Load() {
  if (loaded_) return Status::Ok();
  loaded_ = true;
  store::NodeFilter filter;
  filter.kind = NodeKind::kFact;
  filter.include_inactive = false;
  ASSIGN_OR_RETURN(const std::vector<store::NodeRecord> facts,
                   txn_.ListNodes(scope_.scope_id, filter));
  for (const store::NodeRecord& node : facts) {
    const nlohmann::json content =
        nlohmann::json::parse(node.content_json, nullptr, /*allow_exceptions=*/false);
    if (!content.is_object() || !content.contains("slot") || !content["slot"].is_string()) {
      continue;  // not a fact this stage wrote
    }
    Current current;
    current.id = node.id;
    current.slot.subject = content.value("subject", std::string());
    current.slot.subject_is_speaker = content.value("subject_is_speaker", true);
    current.slot.predicate = content.value("predicate", std::string());
    StatusOr<FactKind> kind = ParseFactKind(content.value("kind", std::string()));
    current.slot.kind = kind.ok() ? *kind : FactKind::kState;
    current.slot.single_valued = content.value("single_valued", false);
    current.slot.past = content.value("past", false);
    current.speaker = node.speaker;
    current.order = next_order_++;
    current.written_object = content.value("object", std::string());
    current.object = NormalizeFactText(current.written_object);
    current.negated = content.value("polarity", std::string("+")) == "-";
    current.has_time = content.contains("time") && !content["time"].is_null();
    current.sequence = node.sequence;
    current.valid_from = node.valid_from;
    current.open = !node.valid_to.has_value();
    slots_[content["slot"].get<std::string>()].push_back(std::move(current));
  }
  return Status::Ok();
}

Status FactReconciler::Link(std::string_view type, std::string_view src, std::string_view dst,
                            std::string_view reason, std::optional<Timestamp> valid_from) {
  EdgeRequest request;
  request.valid_from = valid_from;
  request.type = std::string(type);
  request.src = std::string(src);
  request.dst = std::string(dst);
  request.scope_id = scope_.scope_id;
  request.now = now_;
  if (!reason.empty()) request.attrs_json = nlohmann::json{{"reason", reason}}.dump();
  return registry_.Apply(txn_, request).status();
}

Status FactReconciler::Supersede(const std::string& new_id, Current& old_fact, bool correction,
                                 std::optional<Timestamp> close_at) {
  if (correction) RETURN_IF_ERROR(Link(kCorrects, new_id, old_fact.id, "explicit correction"));
  std::string_view reason = correction ? "correction" : "newer";
  if (close_at.has_value()) {
    reason = "past state";
    // Never before the old fact began.
    if (old_fact.valid_from.has_value() && *close_at < *old_fact.valid_from) {
      close_at = old_fact.valid_from;
    }
  }
  RETURN_IF_ERROR(Link(kSupersedes, new_id, old_fact.id, reason, close_at));
  old_fact.open = false;
  return Status::Ok();
}

Status FactReconciler::LinkTimes(const std::string& fact_id, const store::NodeRecord& turn,
                                 const FactCandidate& candidate) {
  if (!candidate.time.has_value()) return Status::Ok();
  const std::string wanted = NormalizeFactText(candidate.time->text);
  ASSIGN_OR_RETURN(const std::vector<store::EdgeRecord> times,
                   txn_.EdgesOf(turn.id, store::EdgeDirection::kOutgoing, kAtTime));
  for (const store::EdgeRecord& edge : times) {
    if (edge.status != store::kEdgeActive) continue;
    ASSIGN_OR_RETURN(const store::NodeRecord signal, txn_.GetNode(edge.dst));
    const nlohmann::json content =
        nlohmann::json::parse(signal.content_json, nullptr, /*allow_exceptions=*/false);
    if (!content.is_object() || content.value("turn", std::string()) != turn.id) continue;
    if (NormalizeFactText(content.value("surface", std::string())) != wanted) continue;
    EdgeRequest request;
    request.type = std::string(kAtTime);
    request.src = fact_id;
    request.dst = signal.id;
    request.scope_id = scope_.scope_id;
    request.now = now_;
    request.attrs_json = nlohmann::json{{"surface", candidate.time->text}}.dump();
    StatusOr<store::EdgeRecord> linked = registry_.Apply(txn_, request);
    if (!linked.ok() && linked.status().code() != StatusCode::kAlreadyExists) {
      return linked.status();
    }
  }
  return Status::Ok();
}

store::NodeRecord FactReconciler::FactNode(const store::NodeRecord& turn, const FactToStore& fact,
                                           const Verdict* rejected, NodeStatus status) const {
  store::NodeRecord node;
  node.kind = NodeKind::kFact;
  node.scope_id = scope_.scope_id;
  node.content_json = FactContentJson(fact, turn.id, rejected);
  node.id = core::NodeId("fact", node.content_json, scope_.node_id,
                         turn.event_time.value_or(now_).micros);
  node.text = RenderFact(fact.candidate);
  node.role = turn.role;
  node.speaker = turn.speaker;
  node.session_id = turn.session_id;
  node.sequence = turn.sequence;
  node.event_time = turn.event_time;
  // The API's Memory carries metadata, not content: the fact's fields go there too, so
  // Engine::List / Get show what the fact says.
  node.metadata_json = node.content_json;
  node.status = status;
  node.valid_from = fact.valid_from;
  node.valid_to = fact.valid_to;
  node.ingested_at = now_;
  node.updated_at = now_;
  return node;
}

Status FactReconciler::AddRejected(const store::NodeRecord& turn, const FactToStore& fact,
                                   const Verdict& verdict) {
  const store::NodeRecord node = FactNode(turn, fact, &verdict, NodeStatus::kRejected);
  StatusOr<std::int64_t> inserted = txn_.InsertNode(node);
  if (!inserted.ok()) {
    if (inserted.status().code() == StatusCode::kAlreadyExists) return Status::Ok();
    return inserted.status();
  }
  return Link(kDerivedFrom, node.id, turn.id, "");
}

StatusOr<std::vector<CorrectionTarget>> FactReconciler::CorrectionTargets(
    const store::NodeRecord& turn, std::size_t window_turns) {
  RETURN_IF_ERROR(Load());
  std::vector<const Current*> found;
  for (const auto& [key, entries] : slots_) {
    for (const Current& entry : entries) {
      if (!entry.open || entry.negated || entry.slot.past || entry.slot.kind == FactKind::kEvent ||
          entry.speaker != turn.speaker || entry.sequence >= turn.sequence ||
          turn.sequence - entry.sequence > static_cast<std::int64_t>(window_turns)) {
        continue;
      }
      found.push_back(&entry);
    }
  }
  std::sort(found.begin(), found.end(), [](const Current* a, const Current* b) {
    if (a->sequence != b->sequence) return a->sequence > b->sequence;
    return a->order > b->order;
  });
  std::vector<CorrectionTarget> targets;
  for (const Current* entry : found) {
    targets.push_back(CorrectionTarget{entry->id, entry->slot, entry->written_object});
  }
  return targets;
}

StatusOr<ReconcileOutcome> FactReconciler::Add(const store::NodeRecord& turn,
                                               const FactToStore& fact) {
  RETURN_IF_ERROR(Load());
  const FactCandidate& c = fact.candidate;
  const std::string key = SlotKey(c);
  const std::string object = NormalizeFactText(c.object);
  std::vector<Current>& entries = slots_[key];
  const bool timed_kind = c.kind == FactKind::kEvent || c.kind == FactKind::kForesight;

  // The same belief again: more evidence for the existing fact.
  for (const Current& existing : entries) {
    if (existing.object != object || existing.negated != c.negated) continue;
    if (timed_kind && existing.valid_from != fact.valid_from) continue;
    if (!timed_kind && !existing.open && IsCurrentKind(c)) continue;
    ASSIGN_OR_RETURN(const std::vector<store::EdgeRecord> sources,
                     txn_.EdgesOf(existing.id, store::EdgeDirection::kOutgoing, kDerivedFrom));
    const bool linked = std::any_of(sources.begin(), sources.end(),
                                    [&](const store::EdgeRecord& e) { return e.dst == turn.id; });
    if (!linked) RETURN_IF_ERROR(Link(kDerivedFrom, existing.id, turn.id, ""));
    return ReconcileOutcome::kReinforced;
  }

  // Decide against the slot's open facts before writing (a contradiction is stored pending).
  enum class Action { kSupersede, kHistory, kContradict, kEnd };
  std::vector<std::pair<Current*, Action>> plan;
  if (IsCurrentKind(c)) {
    for (Current& existing : entries) {
      if (!existing.open) continue;
      if (fact.from_correction) {
        plan.emplace_back(&existing, Action::kSupersede);
        continue;
      }
      const Timestamp new_from = fact.valid_from.value_or(turn.event_time.value_or(now_));
      const Timestamp old_from = existing.valid_from.value_or(Timestamp{});
      if (new_from > old_from) {
        plan.emplace_back(&existing, Action::kSupersede);
      } else if (new_from < old_from) {
        plan.emplace_back(&existing, Action::kHistory);
      } else if (!c.time.has_value() && !existing.has_time && turn.sequence != existing.sequence) {
        plan.emplace_back(
            &existing, turn.sequence > existing.sequence ? Action::kSupersede : Action::kHistory);
      } else {
        plan.emplace_back(&existing, Action::kContradict);
      }
    }
    // A negated single-valued fact ends the single slot's current value when it names it.
    if (c.single_valued && c.negated) {
      FactCandidate positive = c;
      positive.negated = false;
      auto found = slots_.find(SlotKey(positive));
      if (found != slots_.end()) {
        for (Current& existing : found->second) {
          if (existing.open && !existing.negated && existing.object == object) {
            plan.emplace_back(&existing, Action::kSupersede);
          }
        }
      }
    }
  }
  // "I used to live in Paris": a past state about the single-valued slot's current value ends
  // it at the turn's time.
  if (c.past && !c.negated) {
    if (const std::optional<std::string> current = SingleValuedCurrentOf(c.predicate)) {
      FactCandidate present = c;
      present.predicate = *current;
      present.past = false;
      present.single_valued = true;
      auto found = slots_.find(SlotKey(present));
      if (found != slots_.end()) {
        for (Current& existing : found->second) {
          if (existing.open && !existing.negated && existing.object == object) {
            plan.emplace_back(&existing, Action::kEnd);
          }
        }
      }
    }
  }
  // An explicit correction target outside the slot ("No, I meant Munich" after "I like olives").
  if (!fact.corrects_id.empty()) {
    for (auto& [slot_key, slot_entries] : slots_) {
      for (Current& existing : slot_entries) {
        if (existing.id != fact.corrects_id || !existing.open) continue;
        const bool planned = std::any_of(plan.begin(), plan.end(),
                                         [&](const auto& step) { return step.first == &existing; });
        if (!planned) plan.emplace_back(&existing, Action::kSupersede);
      }
    }
  }
  const bool contradicted = std::any_of(plan.begin(), plan.end(), [](const auto& step) {
    return step.second == Action::kContradict;
  });

  const store::NodeRecord node =
      FactNode(turn, fact, nullptr, contradicted ? NodeStatus::kPending : NodeStatus::kActive);
  StatusOr<std::int64_t> inserted = txn_.InsertNode(node);
  if (!inserted.ok()) {
    // The same candidate from the same turn (a repeated sentence): nothing new.
    if (inserted.status().code() == StatusCode::kAlreadyExists) {
      return ReconcileOutcome::kReinforced;
    }
    return inserted.status();
  }
  RETURN_IF_ERROR(Link(kDerivedFrom, node.id, turn.id, ""));
  RETURN_IF_ERROR(LinkTimes(node.id, turn, c));

  ReconcileOutcome outcome =
      contradicted ? ReconcileOutcome::kContradicted : ReconcileOutcome::kInserted;
  bool open = !fact.valid_to.has_value() && !contradicted;
  for (auto& [existing, action] : plan) {
    if (contradicted) {
      if (action == Action::kContradict) {
        RETURN_IF_ERROR(Link(kContradicts, node.id, existing->id, "conflicting claim"));
      }
      continue;
    }
    if (action == Action::kEnd) {
      RETURN_IF_ERROR(
          Supersede(node.id, *existing, /*correction=*/false, turn.event_time.value_or(now_)));
      outcome = ReconcileOutcome::kSuperseded;
    } else if (action == Action::kSupersede) {
      RETURN_IF_ERROR(Supersede(node.id, *existing, fact.from_correction));
      outcome = fact.from_correction ? ReconcileOutcome::kCorrected : ReconcileOutcome::kSuperseded;
    } else if (action == Action::kHistory && open) {
      RETURN_IF_ERROR(Link(kSupersedes, existing->id, node.id, "newer"));
      open = false;
      outcome = ReconcileOutcome::kHistory;
    }
  }
  if (!contradicted) {
    Current current;
    current.id = node.id;
    current.slot = c;
    current.slot.object.clear();
    current.written_object = c.object;
    current.speaker = turn.speaker;
    current.order = next_order_++;
    current.object = object;
    current.negated = c.negated;
    current.has_time = c.time.has_value();
    current.sequence = turn.sequence;
    current.valid_from = fact.valid_from;
    current.open = open;
    // `entries` may have been invalidated by slots_.find above only if a new key was inserted;
    // look the slot up again.
    slots_[key].push_back(std::move(current));
  }
  return outcome;
}

}  // namespace engram::write
