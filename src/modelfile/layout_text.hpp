#pragma once
// A model's Layout (evaluator.hpp) as text, for the model cache's records of analyses (native.hpp):
// each field on a line of its own, named, with its integers, in the order of the struct. Reading
// is strict: a missing, extra or misspelt field, a negative or oversized count, or anything after
// the last field makes the text unreadable, and the cache then analyses the model again.
#include <optional>
#include <string>
#include <string_view>

#include "modelfile/evaluator.hpp"

namespace dalembert::modelfile {

std::string layout_text(const Layout& layout);

/// The layout `text` describes; nullopt if it is not exactly what layout_text writes.
std::optional<Layout> read_layout_text(std::string_view text);

}  // namespace dalembert::modelfile
