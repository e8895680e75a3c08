// Query frame construction (see query_frame.h).
#include "read/query_frame.h"

namespace engram::read {

QueryFrame BuildQueryFrame(const text::Tokenizer& tokenizer, std::string_view query,
                           Timestamp query_time) {
  QueryFrame frame;
  frame.text = std::string(query);
  frame.terms = tokenizer.Terms(query);
  frame.query_time = query_time;
  return frame;
}

}  // namespace engram::read
