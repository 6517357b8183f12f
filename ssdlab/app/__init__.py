"""SSD Lab's front ends: the headless command line (`cli`), the Qt window (`gui`) and the
developer tools that drive the window (`devtools`)."""
