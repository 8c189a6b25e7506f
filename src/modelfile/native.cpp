#include "modelfile/native.hpp"

#include <dlfcn.h>
#include <unistd.h>

#include <array>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "modelfile/process.hpp"

namespace dalembert::modelfile {

namespace fs = std::filesystem;

namespace {

// -O2 lets the compiler share the common subexpressions of the derivative expressions, and
// -fno-math-errno lets it treat sin, cos, pow as pure functions for that. No -ffast-math: the
// kernels must round like the catalogue's own C++.
constexpr const char* kFlags = "-O2 -fno-math-errno -fPIC -shared -w";

/// 64-bit FNV-1a: a stable content hash (std::hash is not stable across builds).
std::string content_hash(const std::string& text) {
  std::uint64_t h = 1469598103934665603ull;
  for (unsigned char c : text) {
    h ^= c;
    h *= 1099511628211ull;
  }
  char out[17];
  std::snprintf(out, sizeof out, "%016llx", static_cast<unsigned long long>(h));
  return out;
}

using KernelFn = void (*)(const double*, const double*, double, double*);

class NativeEvaluator : public Evaluator {
 public:
  NativeEvaluator(void* handle, std::string path) : handle_(handle), path_(std::move(path)) {
    for (int order = 0; order <= max_taylor_order; ++order) {
      lagrangian_[order] = symbol("dalembert_lagrangian_" + std::to_string(order));
      constraints_[order] = symbol("dalembert_constraints_" + std::to_string(order));
      mechanics_[order] = symbol("dalembert_mechanics_" + std::to_string(order));
    }
    derived_ = symbol("dalembert_derived");
    solution_ = symbol("dalembert_solution");
    initial_ = symbol("dalembert_initial");
  }
  ~NativeEvaluator() override { dlclose(handle_); }

  void lagrangian(int order, const double* x, const double* p, double* out) const override {
    lagrangian_[order](x, p, 0.0, out);
  }
  void constraints(int order, const double* q, const double* p, double* out) const override {
    constraints_[order](q, p, 0.0, out);
  }
  void mechanics(int order, const double* q, const double* p, double* out) const override {
    mechanics_[order](q, p, 0.0, out);
  }
  void derived(const double* x, const double* p, double t, double* out) const override { derived_(x, p, t, out); }
  void solution(const double* x0, const double* p, double t, double* out) const override { solution_(x0, p, t, out); }
  void initial(const double* p, double* out) const override { initial_(nullptr, p, 0.0, out); }
  std::string kind() const override { return "native (" + path_ + ")"; }

 private:
  KernelFn symbol(const std::string& name) const {
    void* f = dlsym(handle_, name.c_str());
    if (!f) throw std::runtime_error("model library " + path_ + " has no " + name);
    return reinterpret_cast<KernelFn>(f);
  }

  void* handle_;
  std::string path_;
  std::array<KernelFn, max_taylor_order + 1> lagrangian_{}, constraints_{}, mechanics_{};
  KernelFn derived_ = nullptr, solution_ = nullptr, initial_ = nullptr;
};

/// Loads a library and checks that it was generated for this layout.
std::unique_ptr<Evaluator> open_library(const std::string& path, const Layout& layout, std::string& problem) {
  void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!handle) {
    problem = std::string("cannot load ") + path + ": " + dlerror();
    return nullptr;
  }
  const auto* version = static_cast<const int*>(dlsym(handle, "dalembert_abi_version"));
  const auto* l_size = static_cast<const int*>(dlsym(handle, "dalembert_lagrangian_size"));
  const auto* m_size = static_cast<const int*>(dlsym(handle, "dalembert_constraints_size"));
  if (!version || *version != 1 || !l_size || *l_size != layout.lagrangian_size || !m_size ||
      *m_size != layout.constraints_size) {
    dlclose(handle);
    problem = path + " does not match the model (stale cache entry?)";
    return nullptr;
  }
  return std::make_unique<NativeEvaluator>(handle, path);
}

}  // namespace

std::string cache_directory() {
  if (const auto dir = environment("DALEMBERT_CACHE_DIR"); !dir.empty()) return dir;
  if (const auto xdg = environment("XDG_CACHE_HOME"); !xdg.empty()) return xdg + "/dalembert";
  if (const auto home = environment("HOME"); !home.empty()) return home + "/.cache/dalembert";
  return (fs::temp_directory_path() / ("dalembert-cache-" + std::to_string(getuid()))).string();
}

NativeBuild native_evaluator(const std::string& c_source, const Layout& layout) {
  NativeBuild build;
  std::string compiler = environment("DALEMBERT_CC");
  if (compiler.empty()) compiler = "cc";
  if (compiler == "none") {
    build.problem = "compilation disabled (DALEMBERT_CC=none)";
    return build;
  }
  const std::string dir = cache_directory();
  std::error_code error;
  fs::create_directories(dir, error);
  if (error) {
    build.problem = "cannot create the cache directory " + dir + ": " + error.message();
    return build;
  }
  const std::string stem = dir + "/" + content_hash(compiler + "\n" + kFlags + "\n" + c_source);
  build.library = stem + ".so";
  if (fs::exists(build.library)) {
    build.evaluator = open_library(build.library, layout, build.problem);
    if (build.evaluator) return build;
  }
  // Compile under temporary names and rename: concurrent runs never load a half-written library.
  const std::string unique = "." + std::to_string(getpid());
  const std::string source = stem + ".c", temporary_source = source + unique, temporary_library = build.library + unique;
  {
    std::ofstream out(temporary_source);
    out << c_source;
    if (!out) {
      build.problem = "cannot write " + temporary_source;
      return build;
    }
  }
  const auto start = std::chrono::steady_clock::now();
  std::string output;
  const int status = run_command(compiler + " " + kFlags + " -x c " + shell_quote(temporary_source) + " -o " +
                                     shell_quote(temporary_library) + " -lm",
                                 output);
  build.compile_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (status != 0) {
    fs::remove(temporary_source, error);
    fs::remove(temporary_library, error);
    build.problem = status == 127 ? "no C compiler '" + compiler + "' found"
                                  : "the compiler '" + compiler + "' failed (status " + std::to_string(status) +
                                        "): " + output.substr(0, 600);
    return build;
  }
  fs::rename(temporary_source, source, error);
  fs::rename(temporary_library, build.library, error);
  if (error) {
    build.problem = "cannot store " + build.library + ": " + error.message();
    return build;
  }
  build.compiled = true;
  build.evaluator = open_library(build.library, layout, build.problem);
  return build;
}

}  // namespace dalembert::modelfile
