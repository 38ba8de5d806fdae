# Large writes in pieces (issue 12): every byte of writes of any size and
# iovec layout, also when the application's pages come in late.
danaus_service_test(write_pieces)
