"""What an operator runs beside the server: `pbm doctor` (is the installation right?) and the
other housekeeping commands."""
