# Writes the identity of the code being built, src/support/build_identity.hpp's two functions, into
# OUTPUT: the commit of the source tree SOURCE_DIR and whether its tracked files differ from it.
# Run at every build (a target of CMakeLists.txt), it rewrites OUTPUT only when that changes, so
# only the one file that includes it is compiled again. Outside a git checkout (a release tarball)
# the commit is empty.
#   cmake -DSOURCE_DIR=... -DOUTPUT=... -P build_identity.cmake
set(DALEMBERT_COMMIT "")
set(DALEMBERT_MODIFIED false)
find_program(GIT_EXECUTABLE git)
if(GIT_EXECUTABLE)
  execute_process(COMMAND ${GIT_EXECUTABLE} -C ${SOURCE_DIR} rev-parse HEAD
                  OUTPUT_VARIABLE DALEMBERT_COMMIT OUTPUT_STRIP_TRAILING_WHITESPACE
                  RESULT_VARIABLE not_git ERROR_QUIET)
  if(not_git)
    set(DALEMBERT_COMMIT "")
  else()
    execute_process(COMMAND ${GIT_EXECUTABLE} -C ${SOURCE_DIR} status --porcelain --untracked-files=no
                    OUTPUT_VARIABLE changes ERROR_QUIET)
    if(NOT changes STREQUAL "")
      set(DALEMBERT_MODIFIED true)
    endif()
  endif()
endif()
file(CONFIGURE OUTPUT ${OUTPUT} @ONLY CONTENT [[
// Generated at build time by cmake/build_identity.cmake: do not edit.
#include "support/build_identity.hpp"

namespace dalembert::support {
std::string_view build_commit() { return "@DALEMBERT_COMMIT@"; }
bool build_modified() { return @DALEMBERT_MODIFIED@; }
}  // namespace dalembert::support
]])
