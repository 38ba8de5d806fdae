# cmake --install and pkg-config, as a packager and an application see them.
add_test(NAME install_pkgconfig
  COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/install/install.sh
          ${CMAKE_BINARY_DIR} ${CMAKE_SOURCE_DIR})
set_tests_properties(install_pkgconfig PROPERTIES LABELS install TIMEOUT 120)
