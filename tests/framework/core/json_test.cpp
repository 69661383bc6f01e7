// Config::from_json (RapidJSON underneath): escapes decode, Python's non-finite floats read, a
// float reads back exactly, and a malformed document is a kiln::Error naming its offset (the
// .keras fuzzer once found a \u escape that escaped as a bare std::invalid_argument).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "kiln/framework/core/config.h"
#include "kiln/framework/core/error.h"

namespace kiln {
namespace {

TEST(Json, StringEscapesDecode) {
  const Config c = Config::from_json(R"({"s": "a\tb\n\u00e9\u20ac\"\\"})");
  EXPECT_EQ(c["s"].as_string(), "a\tb\n\xc3\xa9\xe2\x82\xac\"\\");
}

TEST(Json, PythonsNonFiniteFloatsAndSurrogatePairsRead) {
  const Config c =
      Config::from_json(R"({"a": NaN, "b": Infinity, "c": -Infinity, "d": "\ud83d\ude00"})");
  EXPECT_TRUE(std::isnan(c["a"].as_double()));
  EXPECT_EQ(c["b"].as_double(), std::numeric_limits<double>::infinity());
  EXPECT_EQ(c["c"].as_double(), -std::numeric_limits<double>::infinity());
  EXPECT_EQ(c["d"].as_string(), "\xf0\x9f\x98\x80");
  EXPECT_EQ(Config::from_json(c.to_json()).to_json(), c.to_json());
}

TEST(Json, FloatsAndLargeIntegersReadBackExactly) {
  for (const double d : {0.1, 1.0 / 3.0, 2.2250738585072014e-308, 1.7976931348623157e308, -0.0})
    EXPECT_EQ(Config::from_json(Config(d).to_json()).as_double(), d) << Config(d).to_json();
  EXPECT_EQ(Config::from_json("9223372036854775807").as_int(), INT64_MAX);
  EXPECT_TRUE(Config::from_json("18446744073709551615").type() == Config::Type::floating);
}

TEST(Json, AMalformedDocumentNamesItsOffset) {
  EXPECT_THAT([] { Config::from_json(R"({"a": 1} 2)"); },
              ::testing::ThrowsMessage<Error>(::testing::HasSubstr(
                  "JSON at offset 9: The document root must not be followed by other values.")));
}

TEST(Json, AMalformedUnicodeEscapeIsAnErrorNamingItsOffset) {
  for (const char* text : {R"({"s": "\uzzzz"})", R"({"s": "\u12"})", R"({"s": "\u+123"})",
                           R"({"s": "\u 123"})", R"({"s": "\u12)"}) {
    try {
      Config::from_json(text);
      ADD_FAILURE() << "accepted " << text;
    } catch (const Error& e) {
      EXPECT_THAT(e.what(), ::testing::HasSubstr("JSON at offset 7: Incorrect hex digit after \\u "
                                                 "escape in string."))
          << text;
    }
  }
}

// A document nested deeper than any config (a .keras file's config.json of 100k '[') is an error
// at its offset, not a stack overflow.
TEST(Json, DeepNestingIsAnErrorNotACrash) {
  const std::string deep = std::string(100000, '[') + std::string(100000, ']');
  try {
    Config::from_json(deep);
    ADD_FAILURE() << "accepted 100000 levels";
  } catch (const Error& e) {
    EXPECT_THAT(e.what(), ::testing::HasSubstr("JSON at offset 128: nested more than 128 levels "
                                               "deep; set KILN_JSON_MAX_DEPTH to allow more"));
  }
  EXPECT_NO_THROW(Config::from_json(std::string(128, '[') + std::string(128, ']')));
}

TEST(Json, AMapOfManyKeysKeepsItsOrderAndARepeatedKeyTakesTheLaterValue) {
  std::string text = "{";
  for (int i = 0; i < 100000; ++i)
    text.append("\"k")
        .append(std::to_string(i))
        .append("\": ")
        .append(std::to_string(i))
        .append(",");
  text += "\"k5\": -1}";
  const Config c = Config::from_json(text);
  ASSERT_EQ(c.size(), 100000u);
  EXPECT_EQ(c.as_map()[99999].first, "k99999");
  EXPECT_EQ(c["k5"].as_int(), -1);
  EXPECT_EQ(c.as_map()[5].first, "k5");
}

}  // namespace
}  // namespace kiln
