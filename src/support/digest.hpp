#pragma once
// SHA-256 (OpenSSL's libcrypto), for the names and the integrity checks of the model cache.
#include <string>
#include <string_view>

namespace dalembert::support {

/// The SHA-256 digest of `bytes` as 64 lowercase hexadecimal digits.
std::string sha256_hex(std::string_view bytes);

}  // namespace dalembert::support
