// A table directory's layout: names, the scan, gaps, what writers left behind, sizes.
#include "sowdb/probe/table_directory.h"

#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <system_error>

#include "sowdb/format/index.h"
#include "sowdb/format/layer_parts.h"

namespace sowdb {
namespace fs = std::filesystem;

std::string layer_file_name(int stones) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "layer-%03d.sdb", stones);
  return buf;
}

std::optional<int> parse_layer_file_name(std::string_view name) {
  constexpr std::string_view prefix = "layer-";
  constexpr std::string_view suffix = ".sdb";
  if (name.size() <= prefix.size() + suffix.size() || !name.starts_with(prefix) ||
      !name.ends_with(suffix)) {
    return std::nullopt;
  }
  const std::string_view digits =
      name.substr(prefix.size(), name.size() - prefix.size() - suffix.size());
  if (digits.size() > 4)
    return std::nullopt;
  int n = 0;
  for (char c : digits) {
    if (c < '0' || c > '9')
      return std::nullopt;
    n = n * 10 + (c - '0');
  }
  if (name != layer_file_name(n))
    return std::nullopt;  // e.g. "layer-7.sdb": not a name we write
  return n;
}

std::map<int, LayerFile> read_layer_files(const fs::path& dir) {
  std::map<int, LayerFile> found;
  for (const fs::directory_entry& entry : fs::directory_iterator(dir)) {
    const auto n = parse_layer_file_name(entry.path().filename().string());
    if (!n)
      continue;
    LayerFile f;
    f.path = entry.path();
    try {
      f.info = read_info(entry.path());
    } catch (const std::exception& e) {
      f.error = e.what();
    }
    found.emplace(*n, std::move(f));
  }
  return found;
}

std::vector<int> layer_numbers(const fs::path& dir) {
  std::vector<int> out;
  std::error_code ec;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    if (const auto n = parse_layer_file_name(it->path().filename().string()))
      out.push_back(*n);
  }
  std::sort(out.begin(), out.end());
  return out;
}

int contiguous_top(const std::vector<int>& layers) {
  int top = -1;
  for (const int n : layers) {
    if (n != top + 1)
      break;
    top = n;
  }
  return top;
}

std::optional<LayerGap> find_gap(const std::vector<int>& layers) {
  const int missing = contiguous_top(layers) + 1;
  // The first layer past the contiguous run is above the gap (the run stops at a missing one).
  const auto above = std::upper_bound(layers.begin(), layers.end(), missing);
  if (above == layers.end() || *above > kMaxIndexedStones)
    return std::nullopt;
  return LayerGap{missing, *above};
}

std::optional<LayerGap> find_gap(const fs::path& dir) {
  return find_gap(layer_numbers(dir));
}

std::optional<LayerAgreement> agreed_layers(const fs::path& dir,
                                            const std::map<int, LayerFile>& layers) {
  std::optional<LayerAgreement> agreed;
  for (const auto& [n, f] : layers) {
    if (!f.info)
      continue;  // a damaged layer says nothing about the directory's rules
    if (!agreed) {
      agreed = LayerAgreement{f.info->rules.normalised(), f.info->objective, n};
    } else if (f.info->objective != agreed->objective) {
      // Prose spells the objective "co-operative"; to_string gives the flag value.
      const auto prose = [](Objective o) {
        return o == Objective::kCooperative ? "co-operative" : "competitive";
      };
      throw TableSetError(OpenError::kMixedTables,
                          dir,
                          dir.string() + " mixes competitive and co-operative tables: " +
                              layer_file_name(agreed->from) + " is " + prose(agreed->objective) +
                              ", " + layer_file_name(n) + " " + prose(f.info->objective));
    } else if (!(f.info->rules.normalised() == agreed->rules)) {
      throw TableSetError(
          OpenError::kMixedTables,
          dir,
          dir.string() + " holds tables of different rule sets: " + layer_file_name(agreed->from) +
              " (" + describe(agreed->rules) + ") and " + layer_file_name(n) + " (" +
              describe(f.info->rules.normalised()) + ")");
    }
  }
  return agreed;
}

namespace {

// The writer's process id in "<name>.tmp.<pid>", or nullopt when `name` is no temporary.
std::optional<long> temporary_pid(const std::string& name) {
  const std::string_view infix = kTemporaryInfix;
  const auto at = name.rfind(infix);
  if (at == std::string::npos)
    return std::nullopt;
  const std::string digits = name.substr(at + infix.size());
  if (digits.empty() || digits.size() >= 10 ||
      digits.find_first_not_of("0123456789") != std::string::npos) {
    return std::nullopt;
  }
  return std::stol(digits);
}

}  // namespace

std::vector<LeftBehind> left_behind(const fs::path& dir) {
  std::vector<LeftBehind> out;
  std::error_code ec;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    const std::string name = it->path().filename().string();
    if (!name.starts_with("layer-") && !name.starts_with(kManifestName))
      continue;
    LeftBehind left;
    left.path = it->path();
    if (name.find(kTemporaryInfix) != std::string::npos) {
      const std::optional<long> pid = temporary_pid(name);
      if (!pid)
        continue;
      left.pid = *pid;
      // kill(pid, 0) fails with ESRCH only when no such process exists.
      left.stale = *pid != ::getpid() && ::kill(static_cast<pid_t>(*pid), 0) != 0 && errno == ESRCH;
    } else if (name.ends_with(".plain")) {
      left.stale = true;
    } else {
      continue;
    }
    out.push_back(std::move(left));
  }
  return out;
}

DirectorySizes directory_sizes(const fs::path& dir, int max_stones) {
  DirectorySizes sizes;
  std::error_code ec;
  for (const int n : layer_numbers(dir)) {
    if (n > max_stones)
      break;
    const std::uintmax_t bytes = fs::file_size(dir / layer_file_name(n), ec);
    if (ec)
      continue;
    sizes.layers.emplace(n, bytes);
    sizes.total += bytes;
  }
  const std::uintmax_t manifest = fs::file_size(dir / kManifestName, ec);
  if (!ec) {
    sizes.manifest = manifest;
    sizes.total += manifest;
  }
  return sizes;
}

}  // namespace sowdb
