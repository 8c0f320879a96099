/// \file json.hpp
/// \brief The one JSON writer of every program: nlohmann-json's ordered_json (keys in the order they
/// were added), written to a file. (Host code only: the benchmark's nvcc-compiled main.cu does not
/// include it.)
#pragma once

#include <nlohmann/json.hpp>
#include <string>

namespace scanlab {

using Json = nlohmann::ordered_json;

/// Writes `value` to `path` (overwrites): arrays of objects one object per line, else indented.
/// Throws scanlab::Error "cannot write the <what> '<path>': ..." when the file cannot be written.
void write_json_file(const std::string& path, const Json& value, const std::string& what = "JSON file");

}  // namespace scanlab
