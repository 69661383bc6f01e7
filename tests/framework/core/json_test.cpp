// Config::from_json's strings: escapes decode, and a malformed \u escape is a kiln::Error naming
// its offset (the .keras fuzzer found one that escaped as a bare std::invalid_argument).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "kiln/framework/core/config.h"
#include "kiln/framework/core/error.h"

namespace kiln {
namespace {

TEST(Json, StringEscapesDecode) {
  const Config c = Config::from_json(R"({"s": "a\tb\n\u00e9\u20ac\"\\"})");
  EXPECT_EQ(c["s"].as_string(), "a\tb\n\xc3\xa9\xe2\x82\xac\"\\");
}

TEST(Json, AMalformedUnicodeEscapeIsAnErrorNamingItsOffset) {
  for (const char* text : {R"({"s": "\uzzzz"})", R"({"s": "\u12"})", R"({"s": "\u+123"})",
                           R"({"s": "\u 123"})", R"({"s": "\u12)"}) {
    try {
      Config::from_json(text);
      ADD_FAILURE() << "accepted " << text;
    } catch (const Error& e) {
      EXPECT_THAT(e.what(), ::testing::HasSubstr("JSON at offset 9: \\u must be followed by four "
                                                 "hex digits"))
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
