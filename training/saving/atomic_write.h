#pragma once
// Files written so that a crash at any moment leaves either the previous file or the new one,
// never a mix: the content goes to a temporary file beside the target, which is fsynced and
// renamed over it, and the directory is fsynced so the rename itself survives a power cut.
#include <functional>
#include <string>
#include <string_view>

namespace kiln::saving {

// Calls write(temporary_path) and moves the result to `path`. When write throws, the temporary
// file is removed and `path` is untouched.
void write_atomically(const std::string& path,
                      const std::function<void(const std::string& temporary_path)>& write);

// `bytes` as the whole of `path`, written atomically; a write that fails (a full disk) throws
// naming the file and the system's reason, and leaves `path` as it was.
void write_file_atomically(const std::string& path, std::string_view bytes);

}  // namespace kiln::saving
