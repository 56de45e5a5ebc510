#pragma once
#define PAGESIM_VERSION "0.1.0"
