"""Bank files (issue 27): each window's payments written into a NACHA file or an ISO 20022
pain.001, carried to the bank (SFTP) and its answers (returns, NOCs, status reports) read
back and applied to the transfers."""
