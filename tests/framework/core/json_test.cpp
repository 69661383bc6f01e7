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

}  // namespace
}  // namespace kiln
