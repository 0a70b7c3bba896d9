// libgpiod 1.6 (the v1 API of Debian 12 and Raspberry Pi OS bookworm) for the FrontPanel module's GPIO backend.
#include <gpiod.h>
