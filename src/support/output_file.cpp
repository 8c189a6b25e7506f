#include "support/output_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <map>
#include <mutex>
#include <random>
#include <vector>

#include "dalembert/io/errors.hpp"

namespace dalembert::support {

namespace fs = std::filesystem;

namespace {

std::string quoted(const std::string& path) { return path == "-" ? "standard output" : "'" + path + "'"; }

[[noreturn]] void refuse(const std::string& option, const std::string& path, const std::string& why) {
  throw BadInput(option + ": " + quoted(path) + " " + why);
}

std::string random_suffix() {
  static std::mutex mutex;
  static std::mt19937_64 random{std::random_device{}()};
  const std::lock_guard lock(mutex);
  static constexpr char digits[] = "0123456789abcdefghijklmnopqrstuvwxyz";
  std::string s;
  for (std::uint64_t x = random(), i = 0; i < 12; ++i, x /= 36) s += digits[x % 36];
  return s;
}

bool written_straight_through(mode_t mode) { return S_ISCHR(mode) || S_ISFIFO(mode); }

// --- The files an output must not replace: the command's inputs and its other open outputs -------

/// A file by its device and inode where it exists, and by its path with every link and `..` of its
/// folders resolved.
struct FileIdentity {
  bool exists = false;
  dev_t device = 0;
  ino_t inode = 0;
  std::string path;
  std::string what;  ///< how messages name it: "the model file", "the output of --out"

  bool same_as(const FileIdentity& other) const {
    if (exists && other.exists) return device == other.device && inode == other.inode;
    return path == other.path;
  }
};

FileIdentity identity_of(const std::string& path, std::string what) {
  FileIdentity id;
  id.what = std::move(what);
  std::error_code error;
  id.path = fs::weakly_canonical(fs::absolute(path, error), error).string();
  struct stat st{};
  if (::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode)) {
    id.exists = true;
    id.device = st.st_dev;
    id.inode = st.st_ino;
  }
  return id;
}

std::mutex files_mutex;
std::vector<FileIdentity> inputs;                   // for the whole process
std::map<const OutputFile*, FileIdentity> outputs;  // while they are open

/// Refuses an output that would replace one of the command's inputs or another output.
void check_not_taken(const std::string& option, const std::string& path, const FileIdentity& target) {
  const std::lock_guard lock(files_mutex);
  for (const auto& input : inputs)
    if (target.same_as(input)) refuse(option, path, "is " + input.what + " this command reads; give another path");
  for (const auto& [file, output] : outputs)
    if (target.same_as(output)) refuse(option, path, "is also " + output.what + "; give each output its own path");
}

/// How a path is written (see output_file.hpp), or BadInput.
struct Target {
  enum Kind { standard_output, straight_through, atomic } kind = atomic;
  mode_t replaced_mode = 0;  ///< the permissions of the regular file replaced, 0 if none
  fs::path directory;        ///< where the temporary file goes (atomic)
};

Target classify(const std::string& option, const std::string& path) {
  if (path.empty()) throw BadInput(option + ": the path is empty");
  if (path == "-") return {Target::standard_output, 0, {}};
  struct stat link{};
  Target target;
  if (::lstat(path.c_str(), &link) == 0) {
    if (S_ISLNK(link.st_mode)) {
      struct stat pointee{};
      if (::stat(path.c_str(), &pointee) != 0 || !written_straight_through(pointee.st_mode))
        refuse(option, path, "is a symbolic link; give the path of the file itself (or - for standard output)");
      link = pointee;
    }
    if (S_ISDIR(link.st_mode)) refuse(option, path, "is a directory; give a file name");
    if (written_straight_through(link.st_mode)) return {Target::straight_through, 0, {}};
    if (!S_ISREG(link.st_mode)) refuse(option, path, "is neither a regular file nor a character device or pipe");
    target.replaced_mode = link.st_mode & 07777;
  } else if (errno != ENOENT) {
    refuse(option, path, std::string("cannot be written: ") + std::strerror(errno));
  }
  check_not_taken(option, path, identity_of(path, ""));
  const fs::path p(path);
  target.directory = p.has_parent_path() ? p.parent_path() : fs::path(".");
  std::error_code error;
  if (!fs::is_directory(target.directory, error))
    refuse(option, path, "cannot be written: the directory " + quoted(target.directory.string()) + " does not exist");
  return target;
}

}  // namespace

void check_output_path(const std::string& option, const std::string& path) { classify(option, path); }

void protect_input(const std::string& what, const std::string& path) {
  FileIdentity id = identity_of(path, what);
  const std::lock_guard lock(files_mutex);
  inputs.push_back(std::move(id));
}

OutputFile::OutputFile(const std::string& option, const std::string& path) : option_(option), path_(path) {
  const Target target = classify(option, path);
  if (target.kind == Target::standard_output) {
    fd_ = ::fcntl(STDOUT_FILENO, F_DUPFD_CLOEXEC, 0);
    if (fd_ < 0) throw BadInput(option + ": cannot write to standard output: " + std::strerror(errno));
    return;
  }
  if (target.kind == Target::straight_through) {
    fd_ = ::open(path.c_str(), O_WRONLY | O_CLOEXEC | O_NOCTTY);
    if (fd_ < 0) refuse(option, path, std::string("cannot be opened: ") + std::strerror(errno));
    return;
  }
  const std::string name = fs::path(path).filename().string();
  for (int attempt = 0; attempt < 16 && fd_ < 0; ++attempt) {
    temporary_ = (target.directory / ("." + name + "." + random_suffix() + ".tmp")).string();
    fd_ = ::open(temporary_.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666);
    if (fd_ < 0 && errno != EEXIST) break;
  }
  if (fd_ < 0) {
    const std::string why = std::strerror(errno);
    temporary_.clear();
    refuse(option, path, "cannot be written: " + why);
  }
  removed_on_signal_.emplace(temporary_);
  if (target.replaced_mode) ::fchmod(fd_, target.replaced_mode);  // keep the permissions of the file replaced
  const std::lock_guard lock(files_mutex);
  outputs[this] = identity_of(path, "the output of " + option);
}

OutputFile::~OutputFile() {
  {
    const std::lock_guard lock(files_mutex);
    outputs.erase(this);
  }
  if (fd_ >= 0) ::close(fd_);
  if (!temporary_.empty() && !committed_) ::unlink(temporary_.c_str());
}

void OutputFile::write(std::string_view bytes) {
  while (!bytes.empty()) {
    const ssize_t wrote = ::write(fd_, bytes.data(), bytes.size());
    if (wrote < 0 && errno == EINTR) continue;
    if (wrote <= 0) refuse(option_, path_, std::string("cannot be written: ") + std::strerror(errno));
    bytes.remove_prefix(static_cast<std::size_t>(wrote));
  }
}

void OutputFile::commit() {
  if (committed_) return;
  const int fd = fd_;
  fd_ = -1;
  if (::close(fd) != 0) refuse(option_, path_, std::string("cannot be written: ") + std::strerror(errno));
  if (!temporary_.empty() && ::rename(temporary_.c_str(), path_.c_str()) != 0)
    refuse(option_, path_, std::string("cannot be written: ") + std::strerror(errno));
  committed_ = true;
  removed_on_signal_.reset();
}

void write_file(const std::string& option, const std::string& path, std::string_view content) {
  OutputFile file(option, path);
  file.write(content);
  file.commit();
}

void prepare_directory(const std::string& option, const std::string& path) {
  if (path.empty()) throw BadInput(option + ": the path is empty");
  std::error_code error;
  const auto status = fs::status(path, error);
  if (fs::is_directory(status)) return;
  if (fs::exists(status)) refuse(option, path, "exists and is not a directory");
  fs::create_directories(path, error);
  if (error) refuse(option, path, "cannot be created: " + error.message());
}

}  // namespace dalembert::support
