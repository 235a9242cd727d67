# Debian packages, made by CPack from the install rules (scripts/offline-kit runs it):
#   airlock-offline  the offline half, airlock-qr, the IDLs and the example policy; its
#                    dependencies come from dpkg-shlibdeps, and no network library is among them
#                    (tests/kit_test.sh checks)
#   airlock-online   the online half
#   airlock-apisim   the API twin, for testing only (built with the tests or benchmarks)
# Reproducible: with SOURCE_DATE_EPOCH set (the commit's time) CPack stamps every file with it,
# and no build path is compiled in (-ffile-prefix-map, the IDLs found from the executable).

set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME airlock)
set(CPACK_PACKAGE_VENDOR "airlock")
set(CPACK_PACKAGE_CONTACT "airlock maintainers <airlock@localhost>")
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_PACKAGE_DIRECTORY "${PROJECT_BINARY_DIR}/packages")
# The package version names the commit, so two builds of different commits never share a name.
set(CPACK_PACKAGE_VERSION "${PROJECT_VERSION}")
if(NOT AIRLOCK_GIT_COMMIT STREQUAL "unknown")
  string(SUBSTRING "${AIRLOCK_GIT_COMMIT}" 0 12 short_commit)
  set(CPACK_PACKAGE_VERSION "${PROJECT_VERSION}+git${short_commit}")
endif()

set(CPACK_DEB_COMPONENT_INSTALL ON)
set(CPACK_COMPONENTS_ALL offline online)
if(TARGET airlock-apisim)
  list(APPEND CPACK_COMPONENTS_ALL apisim)
endif()
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION utils)
set(CPACK_DEBIAN_PACKAGE_PRIORITY optional)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(CPACK_DEBIAN_PACKAGE_GENERATE_SHLIBS OFF)
set(CPACK_DEBIAN_COMPRESSION_TYPE xz)

set(CPACK_DEBIAN_OFFLINE_PACKAGE_NAME airlock-offline)
set(CPACK_COMPONENT_OFFLINE_DESCRIPTION
    "air-gapped signer for Manager Bot API vaults\n"
    "Holds the manager key, reviews each unsigned transaction against the request and the "
    "policy, signs with Ed25519 and keeps an audit log. Runs only with no network interface up.")
set(CPACK_DEBIAN_ONLINE_PACKAGE_NAME airlock-online)
set(CPACK_COMPONENT_ONLINE_DESCRIPTION
    "networked half of airlock: builds, sends and follows Manager Bot API transactions\n"
    "Hands each sign request to airlock-offline as QR codes or a file, verifies the answer, "
    "sends each intent at most once and keeps a crash-safe journal.")
set(CPACK_DEBIAN_APISIM_PACKAGE_NAME airlock-apisim)
set(CPACK_COMPONENT_APISIM_DESCRIPTION
    "local twin of the Manager Bot API, for testing airlock\n"
    "Serves the API's endpoints on loopback from fixtures; never for real funds.")

include(CPack)
