import streamlit as st

st.title("Structure")
st.info("This page is being built.")
