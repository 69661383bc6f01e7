// Keras's weight constraints: values against Keras (constraint_goldens.inc), the three config
// forms, Keras's serialized configs both ways, and errors that name the argument.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <ostream>
#include <string>
#include <vector>

#include "kiln/framework/core/error.h"
#include "kiln/layers/constraints/constraints.h"
#include "tests/test_support/expect_error.h"

namespace kiln::constraints {
namespace {

using ::testing::HasSubstr;

struct ConstraintGolden {
  std::string label;
  std::string config;  // Keras's serialized constraint
  std::vector<int64_t> shape;
  std::vector<double> weight;
  std::vector<double> projected;
};

void PrintTo(const ConstraintGolden& g, std::ostream* os) {
  *os << g.label;
}

#include "tests/layers/constraint_goldens.inc"

class ConstraintGoldens : public ::testing::TestWithParam<ConstraintGolden> {};

TEST_P(ConstraintGoldens, MatchKeras) {
  const ConstraintGolden& g = GetParam();
  const Config keras_config = Config::from_json(g.config);
  const ConstraintPtr constraint = from_config(keras_config);
  const Tensor w = from_vector(g.weight, Shape(g.shape), DType::f64);
  const std::vector<double> got = (*constraint)(w).to_vector<double>();
  ASSERT_EQ(got.size(), g.projected.size());
  for (size_t i = 0; i < got.size(); ++i) EXPECT_NEAR(got[i], g.projected[i], 1e-12) << i;
  // Written back as Keras wrote it, numbers compared as numbers.
  const Config written = serialize(*constraint);
  EXPECT_EQ(written["class_name"].as_string(), keras_config["class_name"].as_string());
  for (const auto& [key, value] : keras_config["config"].as_map()) {
    SCOPED_TRACE(key);
    if (value.is_number())
      EXPECT_EQ(written["config"][key].as_double(), value.as_double());
    else
      EXPECT_EQ(written["config"][key].as_int_list(), value.as_int_list());
  }
}

INSTANTIATE_TEST_SUITE_P(Keras, ConstraintGoldens, ::testing::ValuesIn(kConstraintGoldens),
                         [](const ::testing::TestParamInfo<ConstraintGolden>& param) {
                           return param.param.label;
                         });

TEST(Constraints, EveryConfigFormGivesTheSameConstraint) {
  const Config by_class =
      serialize(*from_config(Config::from_json(R"({"MaxNorm": {"max_value": 3}})")));
  const Config keras_form = serialize(*from_config(
      Config::from_json(R"({"class_name": "MaxNorm", "config": {"max_value": 3.0, "axis": 0}})")));
  EXPECT_EQ(by_class, keras_form);
  EXPECT_EQ(serialize(*from_config(Config("max_norm")))["config"]["max_value"].as_double(), 2.0);
  EXPECT_EQ(from_config(Config("NonNeg"))->class_name(), "NonNeg");
  EXPECT_EQ(from_config(Config("unit_norm"))->class_name(), "UnitNorm");
  EXPECT_EQ(from_config(Config()), nullptr);
  EXPECT_EQ(known_names().size(), 4u);
}

TEST(Constraints, BadArgumentsAreNamed) {
  EXPECT_THAT(testing::error_of(
                  [] { (void)from_config(Config::from_json(R"({"MaxNorm": {"max_valu": 3}})")); }),
              HasSubstr("unknown key 'max_valu' for MaxNorm"));
  EXPECT_THAT(testing::error_of([] { (void)from_config(Config("max_nrom")); }),
              HasSubstr("unknown constraint 'max_nrom'"));
  EXPECT_THAT(testing::error_of([] { (void)min_max_norm(2.0, 1.0); }),
              HasSubstr("MinMaxNorm: needs 0 <= min_value <= max_value"));
}

}  // namespace
}  // namespace kiln::constraints
