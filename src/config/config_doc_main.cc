// engram_config_doc: rewrites the generated reference of docs/CONFIG.md (between its markers)
// from the key table, so the document lists every key with its default, range and source.
//
//   build/src/config/engram_config_doc docs/CONFIG.md
//
// config_test fails while the committed document differs from what this writes.
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>

#include "config/config_table.h"

int main(int argc, char** argv) {
  if (argc != 2) {
    std::cerr << "usage: engram_config_doc docs/CONFIG.md\n";
    return 2;
  }
  std::stringstream text;
  {
    std::ifstream in(argv[1]);
    if (!in) {
      std::cerr << "engram_config_doc: cannot read " << argv[1] << "\n";
      return 1;
    }
    text << in.rdbuf();
  }
  engram::StatusOr<std::string> updated = engram::config::SpliceReference(text.str());
  if (!updated.ok()) {
    std::cerr << "engram_config_doc: " << argv[1] << ": " << updated.status().message() << "\n";
    return 1;
  }
  std::ofstream out(argv[1], std::ios::trunc);
  out << *updated;
  if (!out.flush()) {
    std::cerr << "engram_config_doc: cannot write " << argv[1] << "\n";
    return 1;
  }
  return 0;
}
