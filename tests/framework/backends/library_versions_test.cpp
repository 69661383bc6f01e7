// The libraries kiln loaded against those it was built with (`kiln version`): on this machine,
// where kiln was built, each is the one it was built against.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>

#include "kiln/framework/backends/library_versions.h"

namespace kiln {
namespace {

const LoadedLibrary* find(const std::vector<LoadedLibrary>& libraries, const std::string& name) {
  const auto it = std::find_if(libraries.begin(), libraries.end(),
                               [&](const LoadedLibrary& l) { return l.name == name; });
  return it == libraries.end() ? nullptr : &*it;
}

TEST(LibraryVersions, OneDnnIsTheOneBuiltAgainst) {
  const std::vector<LoadedLibrary> libraries = library_versions();
  const LoadedLibrary* onednn = find(libraries, "oneDNN");
  ASSERT_NE(onednn, nullptr);
  ASSERT_TRUE(onednn->built && onednn->loaded);
  EXPECT_EQ(*onednn->built, *onednn->loaded);
  EXPECT_GE(onednn->loaded->major, 2);
}

#ifdef KILN_WITH_CUDA
TEST(LibraryVersions, CudaLibrariesAreAskedWithoutAGpu) {
  const std::vector<LoadedLibrary> libraries = library_versions();
  for (const char* name : {"CUDA runtime", "cuBLAS", "cuDNN", "NVRTC", "NCCL"}) {
    const LoadedLibrary* l = find(libraries, name);
    ASSERT_NE(l, nullptr) << name;
    ASSERT_TRUE(l->built && l->loaded) << name;
    EXPECT_FALSE(l->mismatched()) << name << " built " << l->built->to_string() << ", loaded "
                                  << l->loaded->to_string();
    EXPECT_GT(l->loaded->major, 0) << name;
  }
  const LoadedLibrary* driver = find(libraries, "CUDA driver");
  ASSERT_NE(driver, nullptr);
  EXPECT_FALSE(driver->built);  // nothing is built against the driver
}
#endif

TEST(LibraryVersions, OnlyAnotherMajorVersionIsAMismatch) {
  const LibraryVersion built{9, 10, 2};
  EXPECT_FALSE((LoadedLibrary{"cuDNN", built, LibraryVersion{9, 10, 2}}.mismatched()));
  EXPECT_FALSE((LoadedLibrary{"cuDNN", built, LibraryVersion{9, 3, 0}}.mismatched()));
  EXPECT_TRUE((LoadedLibrary{"cuDNN", built, LibraryVersion{8, 9, 7}}.mismatched()));
  EXPECT_FALSE((LoadedLibrary{"cuDNN", built, std::nullopt}.mismatched()));
  EXPECT_EQ(built.to_string(), "9.10.2");
}

}  // namespace
}  // namespace kiln
