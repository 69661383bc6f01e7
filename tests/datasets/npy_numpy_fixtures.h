#pragma once
// .npy files written by NumPy 2.4 (np.save / np.lib.format.write_array into an io.BytesIO),
// copied byte for byte. Each comment is the call that produced the bytes below it.
namespace kiln::datasets::testing {

// np.save(f, np.arange(6, dtype='<f4').reshape(2, 3))
constexpr char kFloat32Matrix[] =
    "\x93NUMPY\x01\x00v\x00{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3)"
    ", }                                                          \x0a\x00\x00\x00\x00"
    "\x00\x00\x80?\x00\x00\x00@\x00\x00@@\x00\x00\x80@\x00\x00\xa0@";
// np.lib.format.write_array(f, np.array([1, -2, 3], dtype='<i8'), version=(2, 0))
constexpr char kInt64Version2[] =
    "\x93NUMPY\x02\x00t\x00\x00\x00{'descr': '<i8', 'fortran_order': False, 'shape'"
    ": (3,), }                                                          \x0a\x01\x00"
    "\x00\x00\x00\x00\x00\x00\xfe\xff\xff\xff\xff\xff\xff\xff\x03\x00\x00\x00\x00\x00"
    "\x00\x00";
// np.save(f, np.array([True, False, True]))
constexpr char kBoolVector[] =
    "\x93NUMPY\x01\x00v\x00{'descr': '|b1', 'fortran_order': False, 'shape': (3,), "
    "}                                                            \x0a\x01\x00\x01";
// np.save(f, np.array(7, dtype='<i4'))
constexpr char kInt32Scalar[] =
    "\x93NUMPY\x01\x00v\x00{'descr': '<i4', 'fortran_order': False, 'shape': (), } "
    "                                                             \x0a\x07\x00\x00\x00";
// np.save(f, np.asfortranarray(np.arange(6, dtype='<f8').reshape(2, 3)))
constexpr char kFortranOrder[] =
    "\x93NUMPY\x01\x00v\x00{'descr': '<f8', 'fortran_order': True, 'shape': (2, 3),"
    " }                                                           \x0a\x00\x00\x00\x00"
    "\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x08@\x00\x00\x00\x00\x00\x00\xf0?\x00"
    "\x00\x00\x00\x00\x00\x10@\x00\x00\x00\x00\x00\x00\x00@\x00\x00\x00\x00\x00\x00"
    "\x14@";
// np.save(f, np.arange(2, dtype='>f4'))
constexpr char kBigEndian[] =
    "\x93NUMPY\x01\x00v\x00{'descr': '>f4', 'fortran_order': False, 'shape': (2,), "
    "}                                                            \x0a\x00\x00\x00\x00"
    "?\x80\x00\x00";

}  // namespace kiln::datasets::testing
