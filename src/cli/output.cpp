#include "cli/output.hpp"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include <cerrno>
#include <charconv>
#include <cstring>
#include <filesystem>
#include <limits>
#include <span>
#include <sstream>
#include <variant>

#include "dalembert/io/errors.hpp"
#include "dalembert/io/method_options.hpp"

namespace dalembert::cli {

namespace {

void append_header(std::string& out, const std::vector<std::string>& columns) {
  for (std::size_t c = 0; c < columns.size(); ++c) {
    if (c) out += ',';
    out += columns[c];
  }
  out += '\n';
}

void append_row(std::string& out, std::span<const double> values) {
  char buf[32];
  for (std::size_t c = 0; c < values.size(); ++c) {
    if (c) out += ',';
    // Shortest representation that reads back to the same double.
    const auto res = std::to_chars(buf, buf + sizeof buf, values[c]);
    out.append(buf, res.ptr);
  }
  out += '\n';
}

constexpr std::size_t kBlockBytes = 1 << 20;

}  // namespace

void write_csv(std::ostream& out, const Trajectory& t) {
  std::string line;
  append_header(line, t.columns);
  out << line;
  const std::size_t width = t.columns.size();
  for (std::size_t r = 0; r < t.rows(); ++r) {
    line.clear();
    append_row(line, std::span(t.values).subspan(r * width, width));
    out << line;
  }
}

void CsvRowWriter::begin(const std::vector<std::string>& columns) {
  append_header(buffer_, columns);
  begun_ = true;
}

void CsvRowWriter::row(long, std::span<const double> values) {
  append_row(buffer_, values);
  if (buffer_.size() >= kBlockBytes) flush();
}

void CsvRowWriter::finish(const std::vector<std::string>& columns) {
  if (!begun_) begin(columns);
  flush();
}

void CsvRowWriter::flush() {
  file_.write(buffer_);
  buffer_.clear();
}

OutputFormat output_format(const std::string& path, const std::string& format) {
  if (format == "csv") return OutputFormat::csv;
  if (format == "npz") return OutputFormat::npz;
  if (!format.empty()) throw BadInput("--format: unknown format '" + format + "' (known: csv, npz)");
  const std::string extension = std::filesystem::path(path).extension().string();
  if (extension == ".npz") return OutputFormat::npz;
  if (extension.empty() || extension == ".csv" || path == "-") return OutputFormat::csv;
  throw BadInput("--out: '" + path + "' has the extension '" + extension +
                 "', which names no format (known: .csv, .npz; or --format csv|npz)");
}

namespace {

/// A new file that no other process can open, removed with its descriptor (O_TMPFILE, in the
/// temporary directory).
int unnamed_temporary_file() {
  std::error_code error;
  const std::string dir = std::filesystem::temp_directory_path(error).string();
  int fd = ::open(error ? "/tmp" : dir.c_str(), O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
  if (fd < 0) {  // a file system without O_TMPFILE: a named file, removed at once
    std::string name = (error ? std::string("/tmp") : dir) + "/dalembert-rows-XXXXXX";
    fd = ::mkostemp(name.data(), O_CLOEXEC);
    if (fd >= 0) ::unlink(name.c_str());
  }
  if (fd < 0) throw BadInput(std::string("--out: no temporary file for the rows of the .npz: ") + std::strerror(errno));
  return fd;
}

void put16(std::string& out, unsigned x) { out.append({static_cast<char>(x & 0xff), static_cast<char>((x >> 8) & 0xff)}); }
void put32(std::string& out, std::uint32_t x) {
  put16(out, x & 0xffff);
  put16(out, x >> 16);
}

/// The header of a .npy file of `rows` float64 (NPY format 1.0: its length a multiple of 64).
std::string npy_header(std::size_t rows) {
  std::string dict = "{'descr': '<f8', 'fortran_order': False, 'shape': (" + std::to_string(rows) + ",), }";
  const std::size_t unpadded = 10 + dict.size() + 1;
  dict.append((64 - unpadded % 64) % 64, ' ');
  dict += '\n';
  std::string header = "\x93NUMPY";
  header += '\x01';
  header += '\x00';
  put16(header, static_cast<unsigned>(dict.size()));
  return header + dict;
}

}  // namespace

NpzRowWriter::NpzRowWriter(support::OutputFile& file) : file_(file), rows_fd_(unnamed_temporary_file()) {}

NpzRowWriter::~NpzRowWriter() {
  if (rows_fd_ >= 0) ::close(rows_fd_);
}

void NpzRowWriter::begin(const std::vector<std::string>& columns) { columns_ = columns; }

void NpzRowWriter::row(long, std::span<const double> values) {
  buffer_.insert(buffer_.end(), values.begin(), values.end());
  ++rows_;
  if (buffer_.size() * sizeof(double) >= kBlockBytes) flush();
}

void NpzRowWriter::flush() {
  const char* bytes = reinterpret_cast<const char*>(buffer_.data());
  for (std::size_t left = buffer_.size() * sizeof(double); left > 0;) {
    const ssize_t wrote = ::write(rows_fd_, bytes, left);
    if (wrote < 0 && errno == EINTR) continue;
    if (wrote <= 0) throw BadInput(std::string("--out: the rows of the .npz cannot be written: ") + std::strerror(errno));
    bytes += wrote;
    left -= static_cast<std::size_t>(wrote);
  }
  buffer_.clear();
}

void NpzRowWriter::finish(const std::vector<std::string>& columns) {
  if (columns_.empty()) columns_ = columns;
  flush();
  const std::size_t width = columns_.size(), rows = rows_;
  const std::size_t bytes = rows * width * sizeof(double);
  const double* values = nullptr;
  void* mapped = MAP_FAILED;
  if (bytes > 0) {
    mapped = ::mmap(nullptr, bytes, PROT_READ, MAP_PRIVATE, rows_fd_, 0);
    if (mapped == MAP_FAILED)
      throw BadInput(std::string("--out: the rows of the .npz cannot be read back: ") + std::strerror(errno));
    values = static_cast<const double*>(mapped);
  }
  struct Unmap {
    void* p;
    std::size_t n;
    ~Unmap() {
      if (p != MAP_FAILED) ::munmap(p, n);
    }
  } unmap{mapped, bytes};
  const std::string header = npy_header(rows);
  const std::size_t entry = header.size() + rows * sizeof(double);
  constexpr std::size_t kZipLimit = std::numeric_limits<std::uint32_t>::max();
  std::size_t total = 22;
  for (const auto& c : columns_) total += 30 + 46 + 2 * (c.size() + 4) + entry;
  if (total > kZipLimit)
    throw BadInput("--out: the .npz would hold more than 4 GiB, beyond the archive without ZIP64 that dalembert "
                   "writes; use CSV, or keep fewer rows with --every");
  // Each column: a local header, then its .npy (header and data), stored; then the directory.
  std::string directory;
  std::size_t offset = 0;
  std::vector<double> column(std::min<std::size_t>(rows, 1 << 16));
  for (std::size_t j = 0; j < width; ++j) {
    const std::string name = columns_[j] + ".npy";
    const auto for_each_block = [&](auto&& use) {
      for (std::size_t start = 0; start < rows; start += column.size()) {
        const std::size_t count = std::min(column.size(), rows - start);
        for (std::size_t i = 0; i < count; ++i) column[i] = values[(start + i) * width + j];
        use(reinterpret_cast<const char*>(column.data()), count * sizeof(double));
      }
    };
    uLong crc = crc32(0L, reinterpret_cast<const Bytef*>(header.data()), static_cast<uInt>(header.size()));
    for_each_block([&](const char* p, std::size_t n) { crc = crc32(crc, reinterpret_cast<const Bytef*>(p), static_cast<uInt>(n)); });
    const auto fields = [&](std::string& out) {  // shared by the local and the directory's header
      put16(out, 20);       // version needed: 2.0
      put16(out, 0);        // flags
      put16(out, 0);        // stored
      put16(out, 0);        // time
      put16(out, 0x21);     // date: 1980-01-01
      put32(out, static_cast<std::uint32_t>(crc));
      put32(out, static_cast<std::uint32_t>(entry));
      put32(out, static_cast<std::uint32_t>(entry));
      put16(out, static_cast<unsigned>(name.size()));
      put16(out, 0);        // extra field
    };
    std::string local;
    put32(local, 0x04034b50);
    fields(local);
    local += name;
    file_.write(local);
    file_.write(header);
    for_each_block([&](const char* p, std::size_t n) { file_.write(std::string_view(p, n)); });
    put32(directory, 0x02014b50);
    put16(directory, 20);  // made by: 2.0
    fields(directory);
    put16(directory, 0);   // comment
    put16(directory, 0);   // disk
    put16(directory, 0);   // internal attributes
    put32(directory, 0);   // external attributes
    put32(directory, static_cast<std::uint32_t>(offset));
    directory += name;
    offset += local.size() + entry;
  }
  std::string end;
  put32(end, 0x06054b50);
  put16(end, 0);
  put16(end, 0);
  put16(end, static_cast<unsigned>(width));
  put16(end, static_cast<unsigned>(width));
  put32(end, static_cast<std::uint32_t>(directory.size()));
  put32(end, static_cast<std::uint32_t>(offset));
  put16(end, 0);
  file_.write(directory);
  file_.write(end);
}

nlohmann::ordered_json summary_json(const RunSummary& s) {
  nlohmann::ordered_json j;
  j["system"] = s.system;
  j["method"] = s.method;
  j["h"] = s.h;
  j["steps"] = s.steps;
  j["energy0"] = s.energy0;
  j["max_energy_error"] = s.max_energy_error;
  j["max_constraint_residual"] = s.max_constraint_residual;
  if (s.max_discrete_constraint) j["max_discrete_constraint"] = *s.max_discrete_constraint;
  if (s.energy_decay_rate) j["energy_decay_rate"] = *s.energy_decay_rate;
  if (s.max_energy_balance_error) j["max_energy_balance_error"] = *s.max_energy_balance_error;
  j["newton_iterations"] = {{"mean", s.newton_iterations_mean}, {"max", s.newton_iterations_max}};
  j["wall_time_seconds"] = s.wall_time_seconds;
  j["status"] = s.status;
  if (!s.message.empty()) j["message"] = s.message;
  nlohmann::ordered_json warnings = nlohmann::ordered_json::array();
  for (const auto& w : s.warnings)
    warnings.push_back({{"kind", w.kind}, {"step", w.step}, {"t", w.t}, {"message", w.message}});
  j["warnings"] = warnings;
  if (s.projected_v0) j["projected_v0"] = {{"v0", s.projected_v0->v0}, {"change", s.projected_v0->change}};
  if (s.completed_v0) j["completed_v0"] = *s.completed_v0;
  return j;
}

nlohmann::ordered_json run_options_json(const RunOptions& o) {
  nlohmann::ordered_json j = {{"method", o.method}, {"h", o.h}, {"t0", o.t0}, {"steps", o.steps}, {"every", o.every}};
  for (const auto& d : method_options)
    std::visit([&](const auto& value) { j[std::string(d.name)] = value; }, option_value(o, d.name));
  j["reference_tolerance"] = o.reference_tolerance;
  return j;
}

}  // namespace dalembert::cli
