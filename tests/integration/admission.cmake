# A pool's rate on its backend (issue 15): name-space changes and bytes
# written at the configured rate, cached calls never held.
danaus_service_test(admission)
