# Pools sharing their backend with nothing configured (issue 37): a lone
# pool is never paced, two busy pools both finish, a busy pool is held to
# its share next to one that waits.
danaus_service_test(fairshare)
target_include_directories(fairshare PRIVATE ${PROJECT_SOURCE_DIR})
