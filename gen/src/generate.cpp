#include "sowdb/gen/generate.h"

#include <tbb/parallel_for.h>

#include <chrono>
#include <cstdio>
#include <fstream>
#include <memory>
#include <sstream>
#include <stdexcept>
#include <vector>

#include "sowdb/format/index.h"
#include "sowdb/gen/solver.h"

namespace sowdb::gen {
namespace fs = std::filesystem;

std::string layer_file_name(int stones) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "layer-%03d.sdb", stones);
  return buf;
}

std::uint64_t peak_rss_bytes() {
  std::ifstream status("/proc/self/status");
  std::string line;
  while (std::getline(status, line)) {
    if (line.rfind("VmHWM:", 0) == 0) {
      std::istringstream in(line.substr(6));
      std::uint64_t kb = 0;
      in >> kb;
      return kb * 1024;
    }
  }
  return 0;
}

namespace {

std::string describe(const RuleSet& r) {
  std::string s = std::string(to_string(r.family)) + " rules, " +
                  std::to_string(r.pits_per_side) + " pits per side, skip_origin=" +
                  (r.skip_origin ? "on" : "off");
  if (r.family == Family::kOware) s += ", grand_slam=" + std::string(to_string(r.grand_slam));
  if (r.family == Family::kKalah) {
    s += ", capture_empty_opposite=" + std::string(r.capture_empty_opposite ? "on" : "off") +
         ", end=" + std::string(to_string(r.end));
  }
  return s;
}

void write_manifest(const fs::path& dir, const Variant& v) {
  // The manifest only names the variant for display; the rules that count are in each table.
  const fs::path path = dir / kManifestName;
  const fs::path tmp = dir / (std::string(kManifestName) + ".tmp");
  {
    std::ofstream out(tmp, std::ios::trunc);
    out << "{\"variant\": \"" << v.to_string() << "\"}\n";
    out.flush();
    if (!out) {
      std::error_code ec;
      fs::remove(tmp, ec);
      throw std::runtime_error("cannot write " + path.string() + " (disk full?)");
    }
  }
  std::error_code ec;
  fs::rename(tmp, path, ec);
  if (ec) throw std::runtime_error("cannot rename " + tmp.string() + ": " + ec.message());
}

}  // namespace

void generate(const GenerateOptions& options) {
  const RuleSet rules = options.variant.rules.normalised();
  if (options.max_stones < 0 || options.max_stones > kMaxIndexedStones) {
    throw std::runtime_error("--max-stones must be 0.." + std::to_string(kMaxIndexedStones));
  }
  std::error_code ec;
  fs::create_directories(options.out, ec);
  if (ec) {
    throw std::runtime_error("cannot create " + options.out.string() + ": " + ec.message());
  }
  // Refuse a directory that holds tables of another rule set or board before touching anything.
  for (const auto& entry : fs::directory_iterator(options.out)) {
    const std::string name = entry.path().filename().string();
    if (name.rfind("layer-", 0) != 0 || entry.path().extension() != ".sdb") continue;
    LayerInfo info;
    try {
      info = read_info(entry.path());
    } catch (const TableError&) {
      continue;  // unreadable: it will be rebuilt if its layer is needed
    }
    if (!(info.rules == rules)) {
      throw std::runtime_error(options.out.string() + " holds tables of another rule set (" +
                               describe(info.rules) + "); asked for " + describe(rules) +
                               ". Use another --out directory.");
    }
  }

  write_manifest(options.out, options.variant);
  std::vector<std::vector<std::int8_t>> values(options.max_stones + 1);
  for (int n = 0; n <= options.max_stones; ++n) {
    const auto start = std::chrono::steady_clock::now();
    const fs::path path = options.out / layer_file_name(n);
    const std::uint64_t size = layer_size(rules.pits(), n);
    LayerReport report;
    report.stones = n;
    report.positions = size;
    bool reused = false;
    if (fs::exists(path)) {
      try {
        OpenOptions open;
        open.expected_rules = rules;
        open.expected_stones = n;
        auto reader = LayerReader::open(path, open);
        values[n].resize(size);
        reader->read_all(values[n], {});
        reused = true;
      } catch (const TableError&) {
        reused = false;  // damaged or partial: solve it again
      }
    }
    if (!reused) {
      auto progress = [&](double f) {
        if (options.on_progress) options.on_progress(n, f);
      };
      Layer layer = solve_layer(rules, n, [&](int m) { return values[m].data(); }, progress);
      const auto solved = std::chrono::steady_clock::now();
      report.solve_seconds = std::chrono::duration<double>(solved - start).count();
      LayerSource source;
      source.values = layer.value;
      source.fill_depths = [&layer](std::uint64_t first, std::span<std::uint16_t> out) {
        layer.depth.fill(first, out);
      };
      WriteOptions write = options.write;
      if (!write.executor) {
        // Blocks compress independently: spread them over the oneTBB arena.
        write.executor = [](std::size_t tasks, const std::function<void(std::size_t)>& task) {
          tbb::parallel_for(std::size_t{0}, tasks, [&](std::size_t t) { task(t); });
        };
      }
      write_layer(path, rules, n, source, write);
      report.write_seconds =
          std::chrono::duration<double>(std::chrono::steady_clock::now() - solved).count();
      values[n] = std::move(layer.value);
    }
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    report.reused = reused;
    report.seconds = reused ? 0 : seconds;
    report.positions_per_s = (!reused && seconds > 0) ? static_cast<double>(size) / seconds : 0;
    report.peak_rss_bytes = peak_rss_bytes();
    report.bytes_on_disk = fs::file_size(path, ec);
    if (options.on_layer) options.on_layer(report);
  }
}

}  // namespace sowdb::gen
