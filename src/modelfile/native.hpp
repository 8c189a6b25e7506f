#pragma once
// Native kernels: the generated C is compiled once with the system compiler into a shared library
// kept in a cache private to the user, and loaded with dlopen after its digest is checked.
//   compiler:  $DALEMBERT_CC (a program and its arguments, separated by spaces; started without a
//              shell), else cc, or clang for a source of 512 KB or more if it is on PATH (a
//              bicycle's kernels: kernel_compiler); "none" disables compilation (interpreted kernels)
//   cache:     $DALEMBERT_CACHE_DIR, else $XDG_CACHE_HOME/dalembert, else ~/.cache/dalembert,
//              else <temporary directory>/dalembert-cache-<uid>
// The cache directory is created with mode 0700 and used only if it is a directory (not a link)
// owned by this user and writable by no one else; otherwise a new private directory of this
// process is used and a warning names the refused one. An entry <sha256>.so is named by the
// SHA-256 of the compiler, the flags and the C source; <sha256>.digest records that name and the
// SHA-256 of the library. A library is loaded only through the descriptor whose content was just
// checked against the digest; an entry that is missing, damaged, swapped or planted is rebuilt.
// Beside them, <sha256>.model, named by the SHA-256 of the model's text and of the code that
// analyses it, records the analysis (the layout, with its SHA-256) and the library that holds its
// kernels, so that loading the same text again skips the algebra; it is read only from a private
// file, and only if its digests and its library check, or the model is analysed again.
// docs/security.md has the threat model.
#include <cstddef>
#include <memory>
#include <optional>
#include <string>

#include "modelfile/evaluator.hpp"

namespace dalembert::modelfile {

struct NativeBuild {
  std::unique_ptr<Evaluator> evaluator;  ///< null if no library could be built or loaded
  std::string library;                   ///< path of the shared library in the cache
  bool compiled = false;                 ///< false: found in the cache
  double compile_seconds = 0.0;
  std::string problem;                   ///< why there is no evaluator
  std::string warning;                   ///< something the user should know (a refused cache directory)
};

/// The kernels of `c_source`, compiled or found in the cache; with the model's text, the analysis
/// that gave `layout` and `c_source` is recorded beside them (recorded_model).
NativeBuild native_evaluator(const std::string& c_source, const Layout& layout, const std::string& model_text = {});

/// A model's analysis and kernels as recorded in the cache.
struct RecordedModel {
  Layout layout;
  NativeBuild build;
};

/// The analysis and the kernels recorded for a model of this text, if the cache holds them and they
/// check (docs/decisions.md, Model cache: a model's analysis recorded by its text).
std::optional<RecordedModel> recorded_model(const std::string& model_text);

/// The compiler of a generated source of `source_bytes` bytes: $DALEMBERT_CC, else cc, or clang for
/// a long source when it is on PATH.
std::string kernel_compiler(std::size_t source_bytes);

/// The directory of the cached libraries (after the checks above: possibly a private fallback).
std::string cache_directory();

}  // namespace dalembert::modelfile
