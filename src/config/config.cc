// Loading and validating engram's configuration (include/engram/config.h) from TOML.
//
// The schema is the key table (config_table.h): every key of every section is read, type-checked
// and range-checked from it, and anything else in the file is an error naming the key, so a
// misspelt constant never silently keeps its default. Route names in [recall.route_weights] and
// in [planner.<shape>] tables must be known routes.
#define TOML_EXCEPTIONS 0
#include "engram/config.h"

#include <toml++/toml.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "config/config_table.h"

namespace engram {
namespace {

std::string Where(const toml::node& node, std::string_view source) {
  const toml::source_region& region = node.source();
  return std::string(source) + ":" + std::to_string(region.begin.line);
}

std::string KeyName(std::string_view section, std::string_view key) {
  return "[" + std::string(section) + "] " + std::string(key);
}

// Reads `node` into the field `spec` names, checking its type and range.
Status ReadKey(const config::KeySpec& spec, const toml::node& node, std::string_view source,
               Config& config) {
  const std::string where = Where(node, source) + ": ";
  const std::string key = KeyName(spec.section, spec.key);
  return std::visit(
      [&](auto accessor) -> Status {
        using Field = std::remove_reference_t<decltype(accessor(config))>;
        Field value{};
        if constexpr (std::is_same_v<Field, double>) {
          std::optional<double> number = node.value<double>();
          if (!number) return Status::InvalidArgument(where + key + " must be a number");
          value = *number;
        } else if constexpr (std::is_same_v<Field, std::size_t>) {
          std::optional<std::int64_t> number = node.value<std::int64_t>();
          if (!number || *number < 0) {
            return Status::InvalidArgument(where + key + " must be a non-negative integer");
          }
          value = static_cast<std::size_t>(*number);
        } else if constexpr (std::is_same_v<Field, bool>) {
          // as_boolean, not value<bool>: toml++ converts an integer to bool ("enabled = 3").
          const toml::value<bool>* flag = node.as_boolean();
          if (flag == nullptr) {
            return Status::InvalidArgument(where + key + " must be true or false");
          }
          value = flag->get();
        } else {
          std::optional<std::string> text = node.value<std::string>();
          if (!text) return Status::InvalidArgument(where + key + " must be a string");
          value = *text;
        }
        if (Status valid = config::CheckValue(spec, value); !valid.ok()) {
          return Status::InvalidArgument(where + std::string(valid.message()));
        }
        accessor(config) = std::move(value);
        return Status::Ok();
      },
      spec.field);
}

// A table of name = number whose entries `check` accepts, merged into `out`
// ([recall.route_weights], [planner.<shape>]).
Status ReadNumberTable(const toml::node& node, std::string_view name, std::string_view source,
                       Status (*check)(std::string_view, std::string_view, double),
                       std::map<std::string, double>& out) {
  const toml::table* table = node.as_table();
  if (table == nullptr) {
    return Status::InvalidArgument(Where(node, source) + ": " + std::string(name) +
                                   " must be a table of name = number");
  }
  for (const auto& [entry, value_node] : *table) {
    std::optional<double> value = value_node.value<double>();
    if (!value) {
      return Status::InvalidArgument(Where(value_node, source) + ": " + std::string(name) + " " +
                                     std::string(entry.str()) + " must be a number");
    }
    if (Status valid = check(name, entry.str(), *value); !valid.ok()) {
      return Status::InvalidArgument(Where(value_node, source) + ": " +
                                     std::string(valid.message()));
    }
    out[std::string(entry.str())] = *value;
  }
  return Status::Ok();
}

// Reads the section `section` (a table) of the file: its keys from the key table, plus the map
// tables of [recall] and [planner]; any other key is an error.
Status ReadSection(std::string_view section, const toml::table& table, std::string_view source,
                   Config& config) {
  for (const auto& [key_name, node] : table) {
    const std::string_view key = key_name.str();
    const config::KeySpec* spec = nullptr;
    for (const config::KeySpec& candidate : config::Keys()) {
      if (candidate.section == section && candidate.key == key) spec = &candidate;
    }
    if (spec != nullptr) {
      RETURN_IF_ERROR(ReadKey(*spec, node, source, config));
    } else if (section == "recall" && key == "route_weights") {
      RETURN_IF_ERROR(ReadNumberTable(node, "[recall.route_weights]", source,
                                      config::CheckRouteWeight, config.recall.route_weights));
    } else if (section == "planner" && node.is_table()) {
      bool known_shape = false;
      for (const std::string_view shape : config::ShapeNames()) known_shape |= shape == key;
      if (!known_shape) {
        std::string shapes;
        for (const std::string_view shape : config::ShapeNames()) {
          shapes += (shapes.empty() ? "" : ", ") + std::string(shape);
        }
        return Status::InvalidArgument(Where(node, source) + ": unknown key " +
                                       KeyName(section, key) + " (a table per shape: " + shapes +
                                       ")");
      }
      RETURN_IF_ERROR(ReadNumberTable(node, "[planner." + std::string(key) + "]", source,
                                      config::CheckPlannerEntry,
                                      config.planner.shapes[std::string(key)]));
    } else {
      return Status::InvalidArgument(Where(node, source) + ": unknown key " +
                                     KeyName(section, key) + " (see docs/CONFIG.md)");
    }
  }
  return Status::Ok();
}

// toml++ 3.3 reaches __builtin_unreachable (undefined behaviour) when it asks whether one of the
// characters U+00A1..U+0499, U+2C5E..U+3057 (but U+3000) or U+FB26..U+FEFE is white space, which
// it does wherever it records text (keys, table headers, values): found by fuzzing ParseConfig.
// Such characters are refused before parsing; inside a string a \u escape still writes them.
Status RefuseCharactersTomlMishandles(std::string_view text, std::string_view source_name) {
  std::size_t line = 1;
  for (std::size_t byte_idx = 0; byte_idx < text.size(); ++byte_idx) {
    const auto lead = static_cast<unsigned char>(text[byte_idx]);
    if (lead == '\n') ++line;
    char32_t code_point = 0;
    if (lead >= 0xC2 && lead <= 0xDF && byte_idx + 1 < text.size()) {
      code_point =
          (char32_t{lead} & 0x1F) << 6 | (static_cast<unsigned char>(text[byte_idx + 1]) & 0x3F);
    } else if (lead >= 0xE0 && lead <= 0xEF && byte_idx + 2 < text.size()) {
      code_point = (char32_t{lead} & 0x0F) << 12 |
                   (char32_t{static_cast<unsigned char>(text[byte_idx + 1])} & 0x3F) << 6 |
                   (static_cast<unsigned char>(text[byte_idx + 2]) & 0x3F);
    }
    const bool mishandled =
        (code_point >= 0xA1 && code_point <= 0x499) ||
        (code_point >= 0x2C5E && code_point <= 0x3057 && code_point != 0x3000) ||
        (code_point >= 0xFB26 && code_point <= 0xFEFE);
    if (mishandled) {
      char hex[8];
      std::snprintf(hex, sizeof(hex), "%04X", static_cast<unsigned>(code_point));
      return Status::InvalidArgument(std::string(source_name) + ":" + std::to_string(line) +
                                     ": character U+" + hex +
                                     " is not supported in a config file (inside a string, write "
                                     "it as \\u" +
                                     hex + ")");
    }
  }
  return Status::Ok();
}

}  // namespace

Status Config::Validate() const {
  for (const config::KeySpec& spec : config::Keys()) {
    RETURN_IF_ERROR(config::CheckValue(spec, spec.Get(*this)));
  }
  for (const auto& [route, weight] : recall.route_weights) {
    RETURN_IF_ERROR(config::CheckRouteWeight("[recall.route_weights]", route, weight));
  }
  for (const auto& [shape, values] : planner.shapes) {
    bool known_shape = false;
    for (const std::string_view name : config::ShapeNames()) known_shape |= name == shape;
    if (!known_shape) return Status::InvalidArgument("[planner." + shape + "] is not a shape");
    for (const auto& [name, value] : values) {
      RETURN_IF_ERROR(config::CheckPlannerEntry("[planner." + shape + "]", name, value));
    }
  }
  // Rules between keys; each key's own range is in the table.
  if (write.resolve_propose > write.resolve_accept) {
    return Status::InvalidArgument("[write] resolve_propose must be in (0, resolve_accept]");
  }
  if (active.tier_critical > active.tier_healthy) {
    return Status::InvalidArgument("[active] tier_critical must be at most tier_healthy");
  }
  if (active.social_floor > active.social_activation) {
    return Status::InvalidArgument("[active] social_floor must be at most social_activation");
  }
  if (write.llm_facts && write.llm_model.empty()) {
    return Status::InvalidArgument("[write] llm_model is required when llm_facts = true");
  }
  if (recall.llm_loop && recall.llm_model.empty()) {
    return Status::InvalidArgument("[recall] llm_model is required when llm_loop = true");
  }
  if (embedder.kind == "openai") {
    if (embedder.model.empty()) {
      return Status::InvalidArgument("[embedder] model is required with kind = \"openai\"");
    }
    if (embedder.dimension == 0) {
      return Status::InvalidArgument("[embedder] dimension is required with kind = \"openai\"");
    }
  }
  return Status::Ok();
}

StatusOr<Config> ParseConfig(std::string_view toml_text, std::string_view source_name) {
  RETURN_IF_ERROR(RefuseCharactersTomlMishandles(toml_text, source_name));
  toml::parse_result parsed = toml::parse(toml_text, source_name);
  if (!parsed) {
    const toml::parse_error& error = parsed.error();
    return Status::InvalidArgument(std::string(source_name) + ":" +
                                   std::to_string(error.source().begin.line) + ": " +
                                   std::string(error.description()));
  }
  const toml::table& root = parsed.table();
  for (const auto& [key, node] : root) {
    bool known = false;
    for (const std::string_view section : config::Sections()) known |= section == key.str();
    if (!known) {
      return Status::InvalidArgument(Where(node, source_name) + ": unknown section [" +
                                     std::string(key.str()) + "] (see docs/CONFIG.md)");
    }
  }
  Config config;
  for (const std::string_view section : config::Sections()) {
    const toml::node* node = root.get(section);
    if (node == nullptr) continue;
    const toml::table* table = node->as_table();
    if (table == nullptr) {
      return Status::InvalidArgument(Where(*node, source_name) + ": [" + std::string(section) +
                                     "] must be a table");
    }
    RETURN_IF_ERROR(ReadSection(section, *table, source_name, config));
  }
  RETURN_IF_ERROR(config.Validate().WithContext(std::string(source_name)));
  return config;
}

StatusOr<Config> LoadConfigFile(std::string_view path) {
  std::error_code error;
  if (std::filesystem::is_directory(std::string(path), error)) {
    return Status::InvalidArgument("config file " + std::string(path) +
                                   " is a directory, not a TOML file");
  }
  std::ifstream in{std::string(path)};
  if (!in) return Status::NotFound("config file " + std::string(path) + " cannot be read");
  std::stringstream buffer;
  buffer << in.rdbuf();
  return ParseConfig(buffer.str(), path);
}

}  // namespace engram
