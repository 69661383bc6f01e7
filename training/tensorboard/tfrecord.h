#pragma once
// TFRecord framing, the container of TensorBoard's event files: each record is
//   uint64 length (little-endian), uint32 masked CRC32C of the length bytes,
//   the data, uint32 masked CRC32C of the data.
// The CRC is CRC32C (Castagnoli; ISA-L's crc32_iscsi), masked as TensorFlow masks it so that a
// CRC stored inside checksummed data does not checksum to a constant.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace kiln::tensorboard {

uint32_t crc32c(std::string_view bytes);
uint32_t masked_crc32c(std::string_view bytes);

// One record's bytes, framed.
std::string frame_record(std::string_view data);

// Every record of the file at `path`, each checked against both of its CRCs; a short or corrupt
// record is an error naming the file, the record's index and its byte offset.
std::vector<std::string> read_records(const std::string& path);

}  // namespace kiln::tensorboard
