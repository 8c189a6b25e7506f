#pragma once
#include <stdexcept>
#include <string>

namespace dalembert {

/// Invalid input from a user (command line, model parameters, initial data): exit status 2.
class BadInput : public std::runtime_error {
 public:
  explicit BadInput(const std::string& message) : std::runtime_error(message) {}
};

}  // namespace dalembert
