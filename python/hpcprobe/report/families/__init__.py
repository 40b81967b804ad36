"""One module per benchmark family: its report section and its compare label."""
