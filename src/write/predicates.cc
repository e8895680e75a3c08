// The predicate schema's tables (see predicates.h).
#include "write/predicates.h"

#include <algorithm>
#include <array>

namespace engram::write {
namespace {

// Predicates whose past form is not "was_<predicate>".
struct PastForm {
  std::string_view current;
  std::string_view past;
};
constexpr std::array<PastForm, 8> kPastForms = {{
    {"lives_in", "lived_in"},
    {"works_at", "worked_at"},
    {"works_as", "worked_as"},
    {"studies", "studied"},
    {"owns", "owned"},
    {"is_a", "was_a"},
    {"from", "from"},
    {"habit", "used_to"},
}};

constexpr std::array<std::string_view, 9> kSingleValued = {
    "lives_in", "works_at", "works_as", "studies", "from", "relationship_status",
    "employment_status", "diet", "budget",
};

// Prefixes of single-valued families: "favorite_book", "setting_theme".
constexpr std::array<std::string_view, 2> kSingleValuedPrefixes = {"favorite_", "setting_"};

constexpr std::array<std::string_view, 34> kProfileAttributes = {
    "name",          "birthday",       "age",          "job",           "hometown",
    "address",       "email",          "phone_number", "major",         "nickname",
    "profession",    "occupation",     "company",      "employer",      "school",
    "university",    "degree",         "religion",     "nationality",   "height",
    "blood_type",    "zodiac_sign",    "pronouns",     "first_name",    "last_name",
    "full_name",     "middle_name",    "native_language", "first_language", "mother_tongue",
    "username",      "handle",         "timezone",     "time_zone",
};

template <std::size_t N>
bool Contains(const std::array<std::string_view, N>& table, std::string_view word) {
  return std::find(table.begin(), table.end(), word) != table.end();
}

}  // namespace

bool IsProfileAttribute(std::string_view attribute) {
  return Contains(kProfileAttributes, attribute);
}

bool IsSingleValued(std::string_view predicate) {
  if (Contains(kSingleValued, predicate) || IsProfileAttribute(predicate)) return true;
  return std::any_of(kSingleValuedPrefixes.begin(), kSingleValuedPrefixes.end(),
                     [&](std::string_view prefix) { return predicate.starts_with(prefix); });
}

std::string PastOf(std::string_view current) {
  for (const PastForm& form : kPastForms) {
    if (form.current == current) return std::string(form.past);
  }
  return "was_" + std::string(current);
}

std::optional<std::string> SingleValuedCurrentOf(std::string_view past_predicate) {
  for (const PastForm& form : kPastForms) {
    if (form.past == past_predicate && form.past != form.current) {
      if (!IsSingleValued(form.current)) return std::nullopt;
      return std::string(form.current);
    }
  }
  if (past_predicate.starts_with("was_") && IsSingleValued(past_predicate.substr(4))) {
    return std::string(past_predicate.substr(4));
  }
  return std::nullopt;
}

}  // namespace engram::write
