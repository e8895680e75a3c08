// The query frame (DESIGN §5.1): what the read path understood of a question. This first version
// holds the analysed terms and the query time; shape, asked entities and time constraints come
// with the read-path issue.
#ifndef ENGRAM_READ_QUERY_FRAME_H_
#define ENGRAM_READ_QUERY_FRAME_H_

#include <string>
#include <vector>

#include "engram/types.h"
#include "text/tokenizer.h"

namespace engram::read {

struct QueryFrame {
  std::string text;                // the question as asked
  std::vector<std::string> terms;  // normalised, stemmed, stopwords removed, in query order
  Timestamp query_time;            // "now" for the question
};

QueryFrame BuildQueryFrame(const text::Tokenizer& tokenizer, std::string_view query,
                           Timestamp query_time);

}  // namespace engram::read

#endif  // ENGRAM_READ_QUERY_FRAME_H_
