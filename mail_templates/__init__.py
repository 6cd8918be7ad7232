"""The mail templates (Jinja2), shipped as package data so that they travel with the code however pbm
is installed; pbm.replies reads them all into memory when it starts."""
