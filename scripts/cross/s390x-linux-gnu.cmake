# CMake toolchain for the big-endian check (.ci/run big-endian, scripts/big_endian.sh): the device
# side (protocol, device-agent, emulator runtime, xrpm-emulator) cross-compiled for s390x, a
# big-endian 64-bit CPU, with Debian's g++-s390x-linux-gnu. The s390x builds of ENet, protobuf-lite,
# libsodium, xxHash and CLI11 are unpacked (dpkg -x, no multiarch installation) into
# XRPM_S390X_SYSROOT by scripts/big_endian.sh; the compiler's own libc and libstdc++ come from
# /usr/s390x-linux-gnu. protoc is the build machine's (generated code does not depend on the CPU).
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR s390x)
set(CMAKE_C_COMPILER s390x-linux-gnu-gcc)
set(CMAKE_CXX_COMPILER s390x-linux-gnu-g++)

if(NOT XRPM_S390X_SYSROOT)
  set(XRPM_S390X_SYSROOT "$ENV{XRPM_S390X_SYSROOT}")
endif()
if(NOT XRPM_S390X_SYSROOT OR NOT EXISTS "${XRPM_S390X_SYSROOT}/usr/include")
  message(FATAL_ERROR "XRPM_S390X_SYSROOT must name the unpacked s390x packages (scripts/big_endian.sh makes it)")
endif()
# Try-compile projects see the same sysroot.
list(APPEND CMAKE_TRY_COMPILE_PLATFORM_VARIABLES XRPM_S390X_SYSROOT)

set(CMAKE_FIND_ROOT_PATH "${XRPM_S390X_SYSROOT}" /usr/s390x-linux-gnu)
set(CMAKE_LIBRARY_ARCHITECTURE s390x-linux-gnu)
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)  # protoc runs on the build machine
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE ONLY)

# pkg-config (libsodium) reads only the sysroot's .pc files.
set(ENV{PKG_CONFIG_LIBDIR} "${XRPM_S390X_SYSROOT}/usr/lib/s390x-linux-gnu/pkgconfig:${XRPM_S390X_SYSROOT}/usr/share/pkgconfig")
set(ENV{PKG_CONFIG_SYSROOT_DIR} "${XRPM_S390X_SYSROOT}")
set(ENV{PKG_CONFIG_PATH} "")

# The unpacked shared libraries' own dependencies resolve in the sysroot at link time.
set(CMAKE_EXE_LINKER_FLAGS_INIT "-Wl,-rpath-link,${XRPM_S390X_SYSROOT}/usr/lib/s390x-linux-gnu")
set(CMAKE_SHARED_LINKER_FLAGS_INIT "-Wl,-rpath-link,${XRPM_S390X_SYSROOT}/usr/lib/s390x-linux-gnu")
