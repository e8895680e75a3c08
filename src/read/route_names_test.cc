// The configuration checks route and shape names against its own lists (config/config_table.h):
// these tests hold them equal to the read path's route registry and query shapes, so a route or
// shape added here cannot be refused, or a removed one still accepted, by [recall.route_weights]
// and [planner.<shape>].
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "config/config_table.h"
#include "read/query_frame.h"
#include "read/recall.h"

namespace engram::read {
namespace {

TEST(RouteNamesTest, ConfigKnowsExactlyTheRegisteredRoutes) {
  std::vector<std::string> registered = Routes::Default().Names();
  std::sort(registered.begin(), registered.end());
  const std::vector<std::string> configured(config::RouteNames().begin(),
                                            config::RouteNames().end());
  EXPECT_EQ(registered, configured);
}

TEST(RouteNamesTest, ConfigKnowsExactlyTheQueryShapes) {
  std::vector<std::string> shapes;
  for (const QueryShape shape : kAllShapes) shapes.emplace_back(QueryShapeName(shape));
  const std::vector<std::string> configured(config::ShapeNames().begin(),
                                            config::ShapeNames().end());
  EXPECT_EQ(shapes, configured);
}

}  // namespace
}  // namespace engram::read
