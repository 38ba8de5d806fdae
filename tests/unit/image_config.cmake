# The USER[:GROUP] texts an image's config and danaus run -u may give
# (engine/image_config.c).
danaus_unit_test(test_image_config
                 SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_image_config.c
                 LIBS danaus_engine_lib)
