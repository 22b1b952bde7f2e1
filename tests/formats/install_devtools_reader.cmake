# Test set-up (ctest fixture): installs the independent .heapsnapshot reader -- Chrome DevTools'
# heap snapshot model as published on npm (heap-snapshot-toolkit) -- into the build directory.
# Never fails: without node/npm or the registry the DevTools reader tests skip with a message.
# Usage: cmake -DPREFIX=<dir> -P install_devtools_reader.cmake
set(PACKAGE heap-snapshot-toolkit)
set(VERSION 1.1.3)
find_program(NODE node)
find_program(NPM npm)
if(NOT NODE OR NOT NPM)
  message(STATUS "node or npm not found (scripts/deps.sh installs nodejs npm); "
                 "the DevTools reader tests will be skipped")
  return()
endif()
set(MARKER ${PREFIX}/node_modules/${PACKAGE}/package.json)
if(EXISTS ${MARKER})
  file(READ ${MARKER} manifest)
  string(JSON have GET "${manifest}" version)
  if(have STREQUAL VERSION)
    message(STATUS "${PACKAGE}@${VERSION} already in ${PREFIX}")
    return()
  endif()
endif()
file(MAKE_DIRECTORY ${PREFIX})
execute_process(
  COMMAND ${NPM} install --prefix ${PREFIX} --no-audit --no-fund --loglevel=error
          ${PACKAGE}@${VERSION}
  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err TIMEOUT 240)
if(NOT rc EQUAL 0)
  message(STATUS "npm install ${PACKAGE}@${VERSION} failed (${rc}): ${err}\n"
                 "the DevTools reader tests will be skipped")
  return()
endif()
message(STATUS "installed ${PACKAGE}@${VERSION} into ${PREFIX}")
