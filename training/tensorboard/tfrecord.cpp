#include "kiln/training/tensorboard/tfrecord.h"

#include <isa-l/crc.h>

#include <algorithm>
#include <climits>
#include <fstream>

#include "kiln/framework/core/error.h"

namespace kiln::tensorboard {
namespace {

constexpr uint32_t kMaskDelta = 0xa282ead8u;

void put_le(std::string& out, uint64_t value, int bytes) {
  for (int i = 0; i < bytes; ++i) out.push_back(static_cast<char>((value >> (8 * i)) & 0xff));
}

uint64_t get_le(std::string_view in, size_t at, int bytes) {
  uint64_t value = 0;
  for (int i = 0; i < bytes; ++i)
    value |= static_cast<uint64_t>(static_cast<unsigned char>(in[at + i])) << (8 * i);
  return value;
}

}  // namespace

uint32_t crc32c(std::string_view bytes) {
  // crc32_iscsi takes an int length and no final inversion: feed it in chunks, inverting the
  // standard CRC's initial and final values around them.
  uint32_t crc = 0xffffffffu;
  auto* data = reinterpret_cast<unsigned char*>(const_cast<char*>(bytes.data()));
  for (size_t done = 0; done < bytes.size();) {
    const size_t n = std::min<size_t>(bytes.size() - done, INT_MAX);
    crc = crc32_iscsi(data + done, static_cast<int>(n), crc);
    done += n;
  }
  return crc ^ 0xffffffffu;
}

uint32_t masked_crc32c(std::string_view bytes) {
  const uint32_t crc = crc32c(bytes);
  return ((crc >> 15) | (crc << 17)) + kMaskDelta;
}

std::string frame_record(std::string_view data) {
  std::string out;
  out.reserve(data.size() + 16);
  put_le(out, data.size(), 8);
  put_le(out, masked_crc32c(out), 4);
  out.append(data);
  put_le(out, masked_crc32c(data), 4);
  return out;
}

std::vector<std::string> read_records(const std::string& path) {
  std::ifstream file(path, std::ios::binary | std::ios::ate);
  KILN_CHECK(file.good(), "cannot open the event file ", path);
  std::string bytes(static_cast<size_t>(file.tellg()), '\0');
  file.seekg(0);
  KILN_CHECK(
      file.read(bytes.data(), static_cast<std::streamsize>(bytes.size())).good() || bytes.empty(),
      "cannot read the event file ", path);
  std::vector<std::string> records;
  for (size_t at = 0; at < bytes.size();) {
    const auto where = [&] {
      return detail::concat(path, ": record ", records.size(), " at byte ", at);
    };
    KILN_CHECK(bytes.size() - at >= 12, where(), ": truncated header");
    const std::string_view header(bytes.data() + at, 8);
    KILN_CHECK(get_le(bytes, at + 8, 4) == masked_crc32c(header), where(),
               ": the length's CRC does not match");
    const uint64_t length = get_le(bytes, at, 8);
    KILN_CHECK(bytes.size() - at >= 16 && length <= bytes.size() - at - 16, where(),
               ": truncated (", length, " bytes of data announced)");
    const std::string_view data(bytes.data() + at + 12, length);
    KILN_CHECK(get_le(bytes, at + 12 + length, 4) == masked_crc32c(data), where(),
               ": the data's CRC does not match");
    records.emplace_back(data);
    at += 16 + length;
  }
  return records;
}

}  // namespace kiln::tensorboard
