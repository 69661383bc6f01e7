// Dataset::cache(filename): the first complete pass is written to a file, which later passes,
// and later runs, read instead of running upstream again (tf.data's cache(filename)). The file
// appears whole or not at all: a pass writes a file of its own beside it and renames it into
// place at its end, so an abandoned or killed pass leaves nothing a later one would trust.
#include <signal.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>

#include <atomic>
#include <filesystem>

#include "kiln/datasets/dataset.h"
#include "kiln/datasets/pipeline/element_records.h"
#include "kiln/framework/core/log.h"

namespace kiln::datasets {
namespace {

namespace fs = std::filesystem;

class FileReplayIterator final : public ElementIterator {
 public:
  explicit FileReplayIterator(const std::string& path) : reader_(path) {}
  std::optional<Element> next() override { return reader_.next(); }

 private:
  ElementRecordReader reader_;
};

// A private file name beside `path` for one filling pass.
std::string partial_path(const std::string& path) {
  static std::atomic<uint64_t> counter{0};
  return path + ".partial-" + std::to_string(::getpid()) + "-" + std::to_string(counter++);
}

class FileFillIterator final : public ElementIterator {
 public:
  FileFillIterator(std::unique_ptr<ElementIterator> upstream, std::string path)
      : upstream_(std::move(upstream)),
        path_(std::move(path)),
        partial_(partial_path(path_)),
        writer_(partial_) {}
  ~FileFillIterator() override {
    if (!done_) {
      std::error_code ignored;
      fs::remove(partial_, ignored);
    }
  }
  FileFillIterator(const FileFillIterator&) = delete;
  FileFillIterator& operator=(const FileFillIterator&) = delete;

  std::optional<Element> next() override {
    if (done_) return std::nullopt;
    std::optional<Element> e = upstream_->next();
    if (e) {
      writer_.write(*e);
      return e;
    }
    done_ = true;
    writer_.finish();
    // Two passes may fill at once: the first to finish puts its file in place.
    std::error_code error;
    if (fs::exists(path_)) {
      fs::remove(partial_, error);
    } else {
      fs::rename(partial_, path_, error);
      KILN_CHECK(!error, path_, ": cannot put the cache file in place: ", error.message());
      log(LogLevel::info, "cache: wrote ", path_);
    }
    return std::nullopt;
  }

 private:
  std::unique_ptr<ElementIterator> upstream_;
  std::string path_;
  std::string partial_;
  ElementRecordWriter writer_;
  bool done_ = false;
};

// Removes the partial files of passes whose process is gone (a killed run's).
void remove_stale_partials(const std::string& path) {
  const fs::path target(path);
  const fs::path folder = target.parent_path().empty() ? fs::path(".") : target.parent_path();
  const std::string prefix = target.filename().string() + ".partial-";
  std::error_code error;
  for (const fs::directory_entry& entry : fs::directory_iterator(folder, error)) {
    const std::string name = entry.path().filename().string();
    if (!name.starts_with(prefix)) continue;
    const pid_t pid = static_cast<pid_t>(std::atoll(name.c_str() + prefix.size()));
    if (pid > 0 && ::kill(pid, 0) != 0 && errno == ESRCH) fs::remove(entry.path(), error);
  }
}

class FileCacheNode final : public DatasetNode {
 public:
  FileCacheNode(std::shared_ptr<const DatasetNode> upstream, std::string path)
      : upstream_(std::move(upstream)), path_(std::move(path)) {
    KILN_CHECK(!path_.empty(), "cache: the file name is empty (cache() keeps elements in memory)");
    const fs::path folder = fs::path(path_).parent_path();
    KILN_CHECK(folder.empty() || fs::is_directory(folder), path_,
               ": the cache file's folder does not exist");
    remove_stale_partials(path_);
    if (fs::exists(path_))
      log(LogLevel::info, "cache: reading ", path_,
          ", written earlier (delete it when the data changes)");
  }

  std::unique_ptr<ElementIterator> make_iterator(uint64_t pass) const override {
    if (fs::exists(path_)) return std::make_unique<FileReplayIterator>(path_);
    return std::make_unique<FileFillIterator>(upstream_->make_iterator(pass), path_);
  }
  int64_t cardinality() const override { return upstream_->cardinality(); }

 private:
  std::shared_ptr<const DatasetNode> upstream_;
  std::string path_;
};

}  // namespace

Dataset Dataset::cache(const std::string& filename) const {
  return Dataset(std::make_shared<FileCacheNode>(node_, filename));
}

}  // namespace kiln::datasets
